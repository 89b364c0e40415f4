//! A team server in a real browser: Debian's Chromium (driven by `ui/e2e/team/sign_in.mjs`)
//! signs two people in through the identity provider's own page (`beckon-test-idp`, clicking
//! their names) on the real `beckon serve`. The browser keeps the session cookie from scripts;
//! the second person's page cannot see or answer the first person's approval (the API answers
//! as if it did not exist); a page of another site — a `fetch` with credentials, a form posted
//! as JSON — answers nothing; the first person's own page allows only with its CSRF token; and
//! after signing out the page is no one. A forged, expired or misaddressed ID token signs no one
//! in, and a callback followed again from the browser's history is refused.

use beckon_test_idp::Misbehaviour;
use serde_json::{Value, json};

use crate::support::team;
use crate::support::team::{Team, person};

async fn team() -> Team {
    team::team(vec![person("ada", "Ada", &["eng"]), person("bo", "Bo", &["eng"])], &[]).await
}

async fn chromium(args: &[&str]) -> Value {
    team::chromium("sign_in.mjs", args).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_people_in_chromium_each_act_only_as_themselves() {
    let team = team().await;

    // Ada's agent, with a token of hers, asks to run a command.
    let secret_of_token = team.token_for("ada-laptop", "person:ada").await;
    let body = json!({"agent": "claude-code", "approval": {"tool_name": "Bash", "input": {"command": "make deploy"}}});
    let id = team.ask(&secret_of_token, body).await;

    // Another site: the provider's address under another name (`localhost` is not `127.0.0.1`).
    let elsewhere = format!("{}/.well-known/openid-configuration", team.idp.issuer().replace("127.0.0.1", "localhost"));
    let report = chromium(&[&team.url, &elsewhere, &id]).await;
    // Signed in, each as themselves; the cookie is the browser's alone.
    assert_eq!(report["ada"]["me"]["kind"], "member", "{report}");
    assert_eq!(report["ada"]["me"]["subject"], "ada");
    assert_eq!(report["bo"]["me"]["subject"], "bo");
    let cookie = &report["ada"]["cookies"][0];
    assert_eq!(
        (&cookie["name"], &cookie["httpOnly"], &cookie["sameSite"]),
        (&json!("beckon_session"), &json!(true), &json!("Lax"))
    );
    assert_eq!(report["ada"]["script_sees"], "", "no script reads the session cookie");

    // Bo: not listed, not readable, not answerable.
    assert_eq!(report["bo"]["pending"]["status"], 200);
    assert_eq!(report["bo"]["pending"]["body"]["questions"], json!([]), "{report}");
    assert_eq!(report["bo"]["read"]["status"], 404);
    assert_eq!(report["bo"]["allow"]["status"], 404);

    // Another site's page got nothing done; the form's post was refused outright.
    assert_eq!(report["cross_site_form"]["status"], 403, "{report}");
    // Ada's own page, without the token and with it.
    assert_eq!(report["ada"]["allow_without_token"]["status"], 403, "{report}");
    assert_eq!(report["ada"]["allow"]["status"], 200, "{report}");
    assert_eq!(report["ada"]["allow"]["body"]["answered_by"], "oidc:ada (Ada <ada@example.com>)");
    let question = team.question(&id).await;
    assert_eq!(question["answered_by"], "oidc:ada (Ada <ada@example.com>)", "answered once, by her own page");

    // Signed out: the same page is no one.
    assert_eq!(report["ada"]["sign_out"]["status"], 200);
    assert_eq!(report["ada"]["after_sign_out"]["status"], 401);
    team.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_id_token_or_a_replayed_callback_signs_no_one_in() {
    let team = team().await;
    for how in [
        Misbehaviour::ForgedSignature,
        Misbehaviour::Expired,
        Misbehaviour::Audience("someone-else".into()),
        Misbehaviour::Nonce("another".into()),
    ] {
        team.idp.misbehave(how.clone());
        let run = chromium(&["--once", &team.url, "ada"]).await;
        assert_eq!(run["first"]["status"], 401, "{how:?}: {run}");
        let text = run["first"]["text"].as_str().unwrap();
        assert!(text.starts_with("Beckon") && text.contains("the ID token was refused"), "{how:?}: {run}");
        assert!(!run["cookies"].as_array().unwrap().contains(&json!("beckon_session")), "{how:?}: {run}");
    }
    // A good sign-in, then its callback again from the browser's history.
    let run = chromium(&["--once", &team.url, "ada"]).await;
    assert_eq!(run["first"]["status"], 200, "{run}");
    assert_eq!(run["first"]["url"], format!("{}/v1/me", team.url));
    assert_eq!(run["replayed"]["status"], 400, "{run}");
    assert!(run["replayed"]["text"].as_str().unwrap().contains("was already used"), "{run}");
    let (issued, redeemed) = team.idp.codes();
    assert_eq!(redeemed, issued, "every code was presented once and only once");
    team.server.stop().await;
}
