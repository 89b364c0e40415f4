//! The window in a browser: the real `beckon serve` serves the built window (`ui/dist`) to
//! Debian's Chromium (driven by `ui/e2e/team/window.mjs`). Opening the server's address signs
//! the person in through the identity provider's page; each person's inbox lists what is
//! addressed to them, their groups or everyone, and nothing else — not by its address, not by
//! the window's API; the desktop app's own screens are not there; an answer from the page is
//! the person's; a new question arrives by itself and is notified through the browser; signing
//! out leaves for the sign-in.

use serde_json::{Value, json};

use crate::support::team;
use crate::support::team::{person, workspace};

fn ids(rows: &Value) -> Vec<&str> {
    rows.as_array().unwrap().iter().map(|row| row["id"].as_str().unwrap()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_person_uses_the_window_in_chromium_and_sees_only_their_questions() {
    let ui = workspace().join("ui/dist");
    assert!(ui.join("index.html").exists(), "the window is not built: run `npm run build` in ui/ (scripts/test does)");
    let people = vec![person("ada", "Ada Lovelace", &["eng", "ops"]), person("bo", "Bo", &["eng"])];
    let team = team::team(people, &["--ui-dir", ui.to_str().unwrap()]).await;

    let ada_token = team.token_for("ada-laptop", "person:ada").await;
    let bo_token = team.token_for("bo-laptop", "person:bo").await;
    let approval =
        json!({"agent": "claude-code", "approval": {"tool_name": "Bash", "input": {"command": "make deploy"}}});
    let adas = team.ask(&ada_token, approval.clone()).await;
    let bos = team.ask(&bo_token, approval).await;
    let question = |text: &str| {
        json!({"agent": "planner", "questions": [{"question": text, "header": "Plan", "multiSelect": false,
            "options": [{"label": "Yes"}, {"label": "No"}]}]})
    };
    let mut for_ops = question("Page the on-call?");
    for_ops["audience"] = json!("group:ops");
    let ops = team.ask(&team.token, for_ops).await;
    let everyones = team.ask(&team.token, question("Freeze merges for the release?")).await;

    let report = team::chromium("window.mjs", &[&team.url, &adas, &ada_token]).await;

    // Ada came in through the provider's page and sees hers, her group's and everyone's.
    assert!(report["ada"]["signInPage"].as_str().unwrap().starts_with(team.idp.issuer()), "{report}");
    assert_eq!(report["ada"]["name"], "Ada Lovelace", "{report}");
    let mut seen = ids(&report["ada"]["rows"]);
    seen.sort_unstable();
    let mut hers = vec![adas.as_str(), ops.as_str(), everyones.as_str()];
    hers.sort_unstable();
    assert_eq!(seen, hers, "{report}");
    // The desktop app's own screens are not in a browser; signing out is.
    assert_eq!(
        (&report["ada"]["settings"], &report["ada"]["newChat"], &report["ada"]["signOut"]),
        (&json!(0), &json!(0), &json!(1))
    );

    // Bo: his approval and everyone's question; Ada's approval is nowhere, by any way in.
    let mut seen = ids(&report["bo"]["rows"]);
    seen.sort_unstable();
    let mut his = vec![bos.as_str(), everyones.as_str()];
    his.sort_unstable();
    assert_eq!(seen, his, "{report}");
    assert_eq!(report["bo"]["cardsForApproval"], 0, "{report}");
    assert_eq!(report["bo"]["getQuestion"]["status"], 404, "{report}");
    assert_eq!(report["bo"]["allow"]["status"], 404, "{report}");
    assert_eq!(report["bo"]["desktopOnly"]["status"], 404, "the desktop app's commands are not served: {report}");

    // Ada allowed hers from its card: recorded as her answer.
    assert!(report["ada"]["cardAfter"].as_str().unwrap().contains("Ada Lovelace"), "{report}");
    let answered = team.question(&adas).await;
    assert_eq!(answered["status"], "answered", "{answered}");
    assert_eq!(answered["answered_by"], "oidc:ada (Ada Lovelace <ada@example.com>)");
    assert_eq!(answered["answered_via"], "window");
    assert_eq!(team.question(&bos).await["status"], "pending", "Bo's approval is his to answer");

    // A new question of Ada's reached her page by itself and was notified there, not on Bo's.
    assert_eq!(report["fresh"]["status"], 201, "{report}");
    let fresh = report["fresh"]["id"].as_str().unwrap();
    let notified = report["ada"]["notified"].as_array().unwrap();
    assert_eq!(notified.len(), 1, "{report}");
    assert_eq!(notified[0]["tag"], fresh);
    assert_eq!(notified[0]["title"], "release-bot asks");
    assert_eq!(notified[0]["body"], "Release · Tag v2.4 now?");
    let mut after = ids(&report["bo"]["rowsAfter"]);
    after.sort_unstable();
    assert_eq!(after, his, "{report}");
    assert_eq!(report["bo"]["notified"], json!([]), "{report}");

    // The desktop app's sign-in: only by her press on the server's page, and only with the
    // PKCE verifier (a code tried without it is spent).
    let app = &report["app"];
    assert!(app["asked"].as_str().unwrap().contains("as Ada Lovelace"), "{report}");
    assert_eq!(app["state"], "first", "{report}");
    assert_eq!(app["withoutVerifier"]["status"], 400, "{report}");
    assert!(app["withoutVerifier"]["body"].to_string().contains("no PKCE code_verifier"), "{report}");
    assert_eq!(app["thenWithIt"]["status"], 400, "{report}");
    assert_eq!(app["granted"]["status"], 200, "{report}");
    assert_eq!((&app["me"]["kind"], &app["me"]["subject"]), (&json!("member"), &json!("ada")), "{report}");

    // Signed out: the signed-out page (this provider offers no sign-out), and the browser is no one.
    assert_eq!(report["ada"]["afterSignOut"], format!("{}/auth/signed-out", team.url), "{report}");
    assert!(report["ada"]["signedOutPage"].as_str().unwrap().contains("You are signed out"), "{report}");
    assert_eq!(report["ada"]["me"], 401);
    assert_eq!(report["problems"], json!({"ada": [], "bo": []}), "no script errors: {report}");

    // Each page is WCAG 2.1 AA by axe-core: the inbox, an answered card, the app's consent page,
    // the signed-out page.
    for page in ["inbox", "answered", "connectApp", "signedOut"] {
        team::assert_accessible(page, &report["axe"][page]);
    }
    team.server.stop().await;
}
