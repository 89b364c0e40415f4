//! The book's team set-up from nothing (docs/src/team-server/quick-setup.md), step by step, as a
//! team lead would follow it: a PostgreSQL database, a third-party OpenID provider
//! (`oidc-provider` from npm, with its own login, consent and sign-out pages and the person's
//! claims in userinfo only), the window's built files, two `beckon serve` replicas, the admin
//! token shown once and used from the CLI, an agent connected by `beckon setup` with a URL and
//! token, people signing in in Chromium and each seeing their share, an answer given on the
//! other replica reaching the waiting hook, and signing out through the provider.
//!
//! The commands of steps 4 and 6 are read from the page and run as they are there, with the
//! test's own values for the placeholders the page names (its database, ports, folders and
//! provider): step 4's `beckon serve` word by word (the same program with the same arguments, its
//! `export` in the environment), so that the test holds the replica's process; step 6's blocks
//! through `sh -c`, `beckon` on PATH. Steps 1 to 3 need root or a provider's console, and the
//! page says the test does them its own way: a PostgreSQL of its own, `oidc-provider` on
//! loopback, the window built by `npm run build`.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::AsyncBufReadExt;

use crate::docs::book;
use crate::support::another_machine::{beckon_at, finished};
use crate::support::hook;
use crate::support::oidc_provider::OidcProvider;
use crate::support::postgres;
use crate::support::questions;
use crate::support::serve_start::free_port;
use crate::support::team;

/// The page the set-up is on.
const PAGE: &str = "docs/src/team-server/quick-setup.md";

/// A replica as step 4 starts it: its address, and what it printed (the admin token's line when
/// it printed one).
struct Replica {
    url: String,
    _child: tokio::process::Child,
    printed: tokio::sync::watch::Receiver<Vec<String>>,
}

/// The test's values for the page's placeholders in step 4, other than a replica's own.
struct TeamValues<'a> {
    database: &'a str,
    issuer: &'a str,
    secret: &'a Path,
}

/// Step 4's block for a replica on `port` with the data folder `name` under `dir`, run word by
/// word: each `export` into the environment, then `beckon` (the built one) with the block's
/// arguments.
async fn replica_on(dir: &Path, name: &str, port: u16, values: &TeamValues<'_>) -> Replica {
    let data = dir.join(name);
    let ui = team::workspace().join("ui/dist");
    assert!(ui.join("index.html").exists(), "the window is not built: run `npm run build` in ui/ (scripts/test does)");
    let url = format!("http://127.0.0.1:{port}");
    let script = book::block(PAGE, "export BECKON_DATABASE_URL='postgres://beckon:change-me@db.internal:5432/beckon'")
        .with(&[
            ("7401", &port.to_string()),
            ("postgres://beckon:change-me@db.internal:5432/beckon", values.database),
            ("/var/lib/beckon/a", data.to_str().unwrap()),
            ("https://beckon.example.com", &url),
            ("https://idp.example.com/realms/team", values.issuer),
            ("/etc/beckon/oidc-secret", values.secret.to_str().unwrap()),
            ("/usr/share/beckon/ui", ui.to_str().unwrap()),
        ]);
    let mut serve = tokio::process::Command::new(env!("CARGO_BIN_EXE_beckon"));
    serve
        .env_remove("BECKON_DATABASE_URL")
        .env_remove("BECKON_OIDC_CLIENT_SECRET")
        .env_remove("BECKON_CA_FILE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .kill_on_drop(true);
    let log = dir.join(format!("{name}.log"));
    serve.stderr(std::fs::File::create(&log).unwrap());
    let mut ran = false;
    for command in book::commands(&script) {
        let words = book::words(&command);
        match words.iter().map(String::as_str).collect::<Vec<_>>()[..] {
            ["export", assignment] if !ran => {
                let (variable, value) = assignment.split_once('=').unwrap();
                serve.env(variable, value);
            }
            ["beckon", ..] if !ran => {
                serve.args(&words[1..]);
                ran = true;
            }
            _ => panic!("step 4 has `{command}`, which this test does not know how to run"),
        }
    }
    assert!(ran, "step 4 starts no `beckon`:\n{script}");
    let mut child = serve.spawn().unwrap();
    let (tell, printed) = tokio::sync::watch::channel(Vec::new());
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            tell.send_modify(|printed| printed.push(line));
        }
    });
    let began = Instant::now();
    while beckon_gateway::Discovery::read(&data).is_err() {
        if let Some(exit) = child.try_wait().unwrap() {
            panic!(
                "replica {name} exited with {exit}:\n{script}\n{}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
        }
        assert!(began.elapsed() < Duration::from_secs(60), "replica {name} did not serve");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Replica { url, _child: child, printed }
}

/// `sh -c script` on a machine whose home is `home`, with `env` and the built `beckon` first on
/// PATH, run to its end: what it printed, once it succeeded.
async fn shell_at(home: &Path, script: &str, env: &[(&str, &str)]) -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_beckon")).parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    // `beckon_at`'s environment (a home of its own, nothing of Beckon's), for `sh`.
    let like = beckon_at(home);
    let mut command = tokio::process::Command::new("sh");
    for (variable, value) in like.as_std().get_envs() {
        match value {
            Some(value) => command.env(variable, value),
            None => command.env_remove(variable),
        };
    }
    command.arg("-ec").arg(script).env("PATH", path).envs(env.iter().copied());
    command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true);
    let output = finished(&mut command).await;
    let printed = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "sh -ec failed ({}):\n{script}\n{printed}{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    printed
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_lead_sets_up_the_team_server_from_the_book() {
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
    let values = TeamValues { database: &database, issuer: &provider.issuer, secret: &secret };

    // 3 and 4. The window's files (built by scripts/test), and two replicas.
    let a = replica_on(dir.path(), "a", port_a, &values).await;
    let admin = {
        let printed = a.printed.borrow().clone();
        let line =
            printed.iter().find(|line| line.starts_with("Admin token")).expect("the first start shows the admin token");
        line.rsplit(' ').next().unwrap().to_owned()
    };
    let b = replica_on(dir.path(), "b", port_b, &values).await;
    assert!(
        b.printed.borrow().iter().any(|line| line.contains("admin token already exists")),
        "{:?}",
        b.printed.borrow()
    );

    // 6. Agents: a token for Ada's laptop, made with the admin token from the CLI, and Claude Code
    //    connected there by `beckon setup` with the URL and that token.
    let make = book::block(
        PAGE,
        "beckon --url https://beckon.example.com --token \"$ADMIN_TOKEN\" token create --name ada-laptop --ask-only --for person:ada",
    );
    let made =
        shell_at(dir.path(), &make.with(&[("https://beckon.example.com", &a.url)]), &[("ADMIN_TOKEN", &admin)]).await;
    let token = made.trim().to_owned();
    let home = dir.path().join("ada-home");
    std::fs::create_dir_all(&home).unwrap();
    let connect =
        book::block(PAGE, "BECKON_URL=https://beckon.example.com BECKON_TOKEN=\"$TOKEN\" beckon setup claude-code");
    shell_at(&home, &connect.with(&[("https://beckon.example.com", &a.url)]), &[("TOKEN", &token)]).await;

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
