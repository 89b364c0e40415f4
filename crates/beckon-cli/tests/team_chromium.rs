//! A team server in a real browser: Debian's Chromium (driven by `ui/e2e/team/sign_in.mjs`)
//! signs two people in through the identity provider's own page (`beckon-test-idp`, clicking
//! their names) on the real `beckon serve`. The browser keeps the session cookie from scripts;
//! the second person's page cannot see or answer the first person's approval (the API answers
//! as if it did not exist); a page of another site — a `fetch` with credentials, a form posted
//! as JSON — answers nothing; the first person's own page allows only with its CSRF token; and
//! after signing out the page is no one. A forged, expired or misaddressed ID token signs no one
//! in, and a callback followed again from the browser's history is refused.

#![allow(clippy::expect_used, clippy::unwrap_used)]

#[allow(dead_code)]
#[path = "support/server.rs"]
mod server;

use std::path::PathBuf;
use std::time::Duration;

use beckon_test_idp::{Client, Misbehaviour, Person, Provider};
use serde_json::{Value, json};
use server::Server;

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A team server signing people in with a provider that knows Ada and Bo.
struct Team {
    idp: Provider,
    server: Server,
    url: String,
    token: String,
    _dir: tempfile::TempDir,
}

async fn team() -> Team {
    let person = |subject: &str, name: &str| Person {
        subject: subject.into(),
        email: format!("{subject}@example.com"),
        name: name.into(),
        groups: vec!["eng".into()],
    };
    let client = Client {
        id: "beckon".into(),
        secret: Some("s3cret".into()),
        redirect_uris: vec!["http://127.0.0.1/auth/callback".into()],
    };
    let idp = Provider::start(vec![client], vec![person("ada", "Ada"), person("bo", "Bo")]).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("oidc-secret");
    std::fs::write(&secret, "s3cret").unwrap();
    let (data, logs) = (dir.path().join("data"), dir.path().join("logs"));
    std::fs::create_dir_all(&logs).unwrap();
    let oidc = ["--oidc-issuer", idp.issuer(), "--oidc-client-id", "beckon", "--oidc-client-secret-file"];
    let args: Vec<&str> = oidc.into_iter().chain([secret.to_str().unwrap()]).collect();
    let server = Server::start_pairing(&data, &logs, &args, false).await;
    let endpoint = server.watch().borrow().endpoint.clone().unwrap();
    Team { idp, server, url: endpoint.url, token: endpoint.token, _dir: dir }
}

/// Runs the Chromium script with `args`: what it reported.
async fn chromium(args: &[&str]) -> Value {
    assert!(
        workspace().join("ui/node_modules/playwright-core").exists(),
        "the UI's packages are not installed: run `npm ci` in ui/ (scripts/test does)"
    );
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    assert!(std::path::Path::new(&chromium).exists(), "no Chromium at {chromium}: run scripts/install-deps");
    let run = tokio::process::Command::new("node")
        .arg(workspace().join("ui/e2e/team/sign_in.mjs"))
        .args(args)
        .env("CHROMIUM", &chromium)
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(180), run).await.expect("Chromium finished").unwrap();
    assert!(output.status.success(), "the Chromium run failed:\n{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_people_in_chromium_each_act_only_as_themselves() {
    let team = team().await;
    let http = reqwest::Client::builder().no_proxy().build().unwrap();

    // Ada's agent, with a token of hers, asks to run a command.
    let made = http
        .post(format!("{}/v1/tokens", team.url))
        .bearer_auth(&team.token)
        .json(&json!({"name": "ada-laptop", "kind": "ask_only", "owner": "person:ada"}))
        .send()
        .await
        .unwrap();
    let secret_of_token = made.json::<Value>().await.unwrap()["secret"].as_str().unwrap().to_owned();
    let asked = http
        .post(format!("{}/v1/questions", team.url))
        .bearer_auth(&secret_of_token)
        .json(&json!({"agent": "claude-code", "approval": {"tool_name": "Bash", "input": {"command": "make deploy"}}}))
        .send()
        .await
        .unwrap();
    assert_eq!(asked.status(), 201);
    let id = asked.json::<Value>().await.unwrap()["request_id"].as_str().unwrap().to_owned();

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
    let question = http
        .get(format!("{}/v1/questions/{id}", team.url))
        .bearer_auth(&team.token)
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
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
