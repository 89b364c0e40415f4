//! The window as an installed web app with pushes, in Debian's Chromium at a phone's size
//! (driven by `ui/e2e/team/push.mjs`) against the real `beckon serve`: the manifest and the
//! service worker make it installable; Ada turns notifications on, and her agent's approval is
//! pushed through a push service stand-in, signed with the server's VAPID key and encrypted for
//! her browser alone — both checked with code that is not Beckon's; delivered to the service
//! worker, it shows Allow and Deny, and Allow answers on the server as Ada, from a notification;
//! a command too long to show offers Deny only; a subscription the push service forgot is
//! dropped; and with the server stopped, the app still opens from its worker and says so.

use serde_json::{Value, json};

use crate::support::team;
use crate::support::team::{person, workspace};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_push_reaches_the_installed_app_encrypted_and_its_button_answers_as_the_person() {
    let ui = workspace().join("ui/dist");
    assert!(ui.join("sw.js").exists(), "the window is not built: run `npm run build` in ui/ (scripts/test does)");
    // The push service stand-in listens on loopback, where a team server sends nothing unless
    // told: pushes go where callbacks may.
    let args = ["--ui-dir", ui.to_str().unwrap(), "--allow-callbacks-to", "127.0.0.1"];
    let team = team::team(vec![person("ada", "Ada Lovelace", &["eng"])], &args).await;
    let token = team.token_for("ada-laptop", "person:ada").await;
    // Waiting when she opens the window on her phone: a question and an approval.
    let question = json!({"agent": "release-bot", "questions": [{"question": "Ship the release?", "header": "Release",
        "multiSelect": false, "options": [{"label": "Yes"}, {"label": "No"}]}]});
    let release = team.ask(&token, question).await;
    let approval =
        json!({"agent": "claude-code", "approval": {"tool_name": "Bash", "input": {"command": "make release"}}});
    let allow = team.ask(&token, approval).await;
    let profile = tempfile::tempdir().unwrap();
    let report = team::chromium("push.mjs", &[&team.url, &token, profile.path().to_str().unwrap()]).await;
    assert_eq!(report["problems"], Value::Array(vec![]), "{report}");

    // At a phone's size the sidebar is folded away; both were answered by touch, as Ada.
    assert_eq!(report["sidebarFolded"], true, "{report}");
    for (id, answer) in [(&release, "Yes"), (&allow, "Allow")] {
        let answered = team.question(id).await;
        assert_eq!(answered["status"], "answered", "{answered}");
        assert_eq!(answered["answered_via"], "window");
        assert_eq!(answered["answered_by"], "oidc:ada (Ada Lovelace <ada@example.com>)");
        assert_eq!(answered["outcome"]["answers"][0]["selected"][0], answer, "{answered}");
    }

    // Installable: the worker runs for the whole window, the manifest is read without fault.
    assert_eq!(report["worker"]["scope"], format!("{}/", team.url), "{report}");
    assert_eq!(report["worker"]["script"], format!("{}/sw.js", team.url));
    assert_eq!(report["installability"], Value::Array(vec![]), "{report}");
    assert_eq!(report["manifest"]["errors"], Value::Array(vec![]), "{report}");

    // The push: the server's key, a token for the push service's origin, the browser's secret.
    let push = &report["allowed"]["push"];
    assert_eq!(push["key"], report["subscribedWith"], "signed with the key the browser subscribed with: {report}");
    assert_eq!(push["signed"], true, "{report}");
    assert_eq!(push["forgedRefused"], true);
    assert_eq!(push["header"]["alg"], "ES256");
    assert_eq!(push["forServiceOrigin"], true, "{push}");
    assert_eq!(push["fresh"], true, "{push}");
    assert_eq!(push["encoding"], "aes128gcm");
    assert_eq!(push["plaintextInTransit"], false, "the push service sees ciphertext");
    let message: Value = serde_json::from_str(push["message"].as_str().expect("decrypted")).unwrap();
    assert_eq!(message["kind"], "question");
    assert_eq!(message["request_id"], report["allowed"]["id"]);
    assert_eq!(message["body"], "Allow Claude to run this command?\nmake deploy");

    // Shown with the buttons the desktop would show; Allow answered on the server as Ada.
    let shown = &report["allowed"]["shown"][0];
    assert_eq!(shown["title"], "claude-code asks: Bash", "{report}");
    let buttons: Vec<&str> =
        shown["actions"].as_array().unwrap().iter().map(|a| a["title"].as_str().unwrap()).collect();
    assert_eq!(buttons, ["Allow", "Deny"]);
    // The notification is replaced by the outcome: the same tag, no buttons.
    let pressed = &report["allowed"]["pressed"];
    assert_eq!(pressed["title"], "Allowed", "{report}");
    assert_eq!((&pressed["options"]["tag"], &pressed["options"]["actions"]), (&report["allowed"]["id"], &json!([])));
    let id = report["allowed"]["id"].as_str().unwrap();
    let question = team.question(id).await;
    assert_eq!(question["status"], "answered", "{question}");
    assert_eq!(question["answered_via"], "notification");
    assert_eq!(question["answered_by"], "oidc:ada (Ada Lovelace <ada@example.com>)");

    // A command cut to fit: Deny only.
    let cut = &report["cut"]["shown"][0];
    let buttons: Vec<&str> = cut["actions"].as_array().unwrap().iter().map(|a| a["title"].as_str().unwrap()).collect();
    assert_eq!(buttons, ["Deny"], "{report}");
    assert!(cut["body"].as_str().unwrap().contains("open Beckon to read it"), "{cut}");

    // 410 Gone: the device is forgotten, and nothing more goes there.
    assert_eq!(report["gone"]["pushes"], 3, "{report}");
    assert_eq!(report["gone"]["afterwards"], 3, "{report}");

    // The server stopped: the installed app opens from its worker and says it cannot reach it.
    team.server.stop().await;
    let offline = team::chromium("push.mjs", &["--offline", &team.url, profile.path().to_str().unwrap()]).await;
    assert_eq!(offline["fromWorker"], true, "{offline}");
    assert!(offline["text"].as_str().unwrap().contains("cannot be reached"), "{offline}");
}
