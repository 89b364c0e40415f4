//! The README's team set-up from nothing, step by step, as a team lead would follow it: a
//! PostgreSQL database, a third-party OpenID provider (`oidc-provider` from npm, with its own
//! login, consent and sign-out pages and the person's claims in userinfo only), the window's
//! built files, two `beckon serve` replicas, the admin token shown once and used from the CLI, an
//! agent connected by `beckon setup` with a URL and token, people signing in in Chromium and each
//! seeing their share, an answer given on the other replica reaching the waiting hook, and
//! signing out through the provider.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::AsyncBufReadExt;

use crate::support::another_machine::{beckon_at, finished};
use crate::support::hook;
use crate::support::oidc_provider::OidcProvider;
use crate::support::postgres;
use crate::support::questions;
use crate::support::serve_start::free_port;
use crate::support::team;

/// A replica as step 4 starts it: its data folder, the database in the environment, and the
/// admin token's line when it printed one.
struct Replica {
    url: String,
    _child: tokio::process::Child,
    printed: tokio::sync::watch::Receiver<Vec<String>>,
}

async fn replica_on(dir: &Path, name: &str, port: u16, database: &str, oidc: &[&str]) -> Replica {
    let data = dir.join(name);
    let ui = team::workspace().join("ui/dist");
    assert!(ui.join("index.html").exists(), "the window is not built: run `npm run build` in ui/ (scripts/test does)");
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_beckon"))
        .arg("--data-dir")
        .arg(&data)
        .args(["serve", "--port", &port.to_string()])
        .args(oidc)
        .arg("--ui-dir")
        .arg(&ui)
        .env("BECKON_DATABASE_URL", database)
        .env_remove("BECKON_OIDC_CLIENT_SECRET")
        .env_remove("BECKON_CA_FILE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let (tell, printed) = tokio::sync::watch::channel(Vec::new());
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            tell.send_modify(|printed| printed.push(line));
        }
    });
    let began = Instant::now();
    while beckon_gateway::Discovery::read(&data).is_err() {
        assert!(child.try_wait().unwrap().is_none(), "replica {name} exited");
        assert!(began.elapsed() < Duration::from_secs(60), "replica {name} did not serve");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Replica { url: format!("http://127.0.0.1:{port}"), _child: child, printed }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_lead_sets_up_the_team_server_from_the_readme() {
    let dir = tempfile::tempdir().unwrap();

    // 1. PostgreSQL: a role and a database.
    let (_cluster, database) = postgres::database("beckon").await;

    // 2. The identity provider: Beckon registered with its callback and post-logout addresses
    //    (one per replica here, where a balancer would give them one), people and the admins'
    //    group.
    let (port_a, port_b) = (free_port(), free_port());
    let bases = [format!("http://127.0.0.1:{port_a}"), format!("http://127.0.0.1:{port_b}")];
    let provider = OidcProvider::start(
        dir.path(),
        json!({
            "port": free_port(),
            "clients": [{
                "client_id": "beckon",
                "client_secret": "s3cret-from-the-provider",
                "redirect_uris": bases.iter().map(|base| format!("{base}/auth/callback")).collect::<Vec<_>>(),
                "post_logout_redirect_uris": bases.iter().map(|base| format!("{base}/auth/signed-out")).collect::<Vec<_>>(),
            }],
            "people": {
                "ada": {"name": "Ada Lovelace", "email": "ada@example.com", "groups": ["eng"]},
                "bo": {"name": "Bo Stone", "email": "bo@example.com", "groups": ["design"]},
            },
        }),
    )
    .await;
    let secret = dir.path().join("oidc-secret");
    std::fs::write(&secret, "s3cret-from-the-provider\n").unwrap();
    let oidc = [
        "--oidc-issuer",
        provider.issuer.as_str(),
        "--oidc-client-id",
        "beckon",
        "--oidc-client-secret-file",
        secret.to_str().unwrap(),
    ];

    // 3 and 4. The window's files (built by scripts/test), and two replicas.
    let a = replica_on(dir.path(), "a", port_a, &database, &oidc).await;
    let admin = {
        let printed = a.printed.borrow().clone();
        let line =
            printed.iter().find(|line| line.starts_with("Admin token")).expect("the first start shows the admin token");
        line.rsplit(' ').next().unwrap().to_owned()
    };
    let b = replica_on(dir.path(), "b", port_b, &database, &oidc).await;
    assert!(
        b.printed.borrow().iter().any(|line| line.contains("admin token already exists")),
        "{:?}",
        b.printed.borrow()
    );

    // 6. Agents: a token for Ada's laptop, made with the admin token from the CLI, and Claude Code
    //    connected there by `beckon setup` with the URL and that token.
    let made = finished(beckon_at(dir.path()).args(["--url", &a.url, "--token", &admin]).args([
        "token",
        "create",
        "--name",
        "ada-laptop",
        "--ask-only",
        "--for",
        "person:ada",
    ]))
    .await;
    assert!(made.status.success(), "token create: {}", String::from_utf8_lossy(&made.stderr));
    let token = String::from_utf8_lossy(&made.stdout).trim().to_owned();
    let home = dir.path().join("ada-home");
    std::fs::create_dir_all(&home).unwrap();
    let setup =
        finished(beckon_at(&home).env("BECKON_URL", &a.url).env("BECKON_TOKEN", &token).args(["setup", "claude-code"]))
            .await;
    assert!(setup.status.success(), "setup: {}", String::from_utf8_lossy(&setup.stderr));
    let check = finished(beckon_at(&home).args(["setup", "claude-code", "--check"])).await;
    assert!(
        check.status.success(),
        "setup --check: {}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );

    // Claude Code on her laptop asks to run a command: its hook, with nothing but what setup
    // wrote to find the team server, waits.
    let event = json!({"session_id": "7d1f", "cwd": "/home/ada/shop", "permission_mode": "default",
        "hook_event_name": "PermissionRequest", "tool_name": "Bash",
        "tool_input": {"command": "make deploy", "description": "Deploy the shop"}});
    let hook = hook::start(&mut beckon_at(&home), &event).await;
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    let listed = format!("{}/v1/questions", b.url);
    let first = questions::first_listed(&http, &listed, &admin, Duration::from_secs(30), |listed| {
        format!("the hook's approval did not arrive: {listed}")
    })
    .await;
    let approval = first["request_id"].as_str().unwrap().to_owned();

    // 5 and 7. People sign in in Chromium; Ada answers on replica B and signs out.
    let report = team::chromium("walkthrough.mjs", &[&a.url, &b.url, &approval]).await;
    assert!(report["bo"]["loginPage"].as_str().unwrap().starts_with(&provider.issuer), "{report}");
    assert_eq!(report["bo"]["name"], "Bo Stone", "the name from userinfo: {report}");
    assert!(!report["bo"]["rows"].as_array().unwrap().contains(&json!(approval)), "not in Bo's share: {report}");
    assert_eq!(report["ada"]["name"], "Ada Lovelace", "{report}");
    assert!(report["ada"]["rowsOnB"].as_array().unwrap().contains(&json!(approval)), "{report}");
    let (printed, _) = hook::decision(hook, Duration::from_secs(30)).await;
    assert_eq!(printed["hookSpecificOutput"]["decision"]["behavior"], "allow", "{printed}");
    let question: Value = http
        .get(format!("{}/v1/questions/{approval}", a.url))
        .bearer_auth(&admin)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(question["answered_by"], "oidc:ada (Ada Lovelace <ada@example.com>)", "{question}");
    assert!(report["ada"]["providerSignOut"].as_str().unwrap().starts_with(&provider.issuer), "{report}");
    assert_eq!(report["ada"]["afterSignOut"]["url"], format!("{}/auth/signed-out", b.url), "{report}");
    assert!(report["ada"]["afterSignOut"]["text"].as_str().unwrap().contains("You are signed out"), "{report}");
    assert_ne!(report["ada"]["me"], 200, "{report}");
    assert!(report["ada"]["askedAgain"].as_str().unwrap().starts_with(&provider.issuer), "{report}");
    assert_eq!(report["problems"], json!({"ada": [], "bo": []}), "no script errors: {report}");
}
