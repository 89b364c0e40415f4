//! Agents on another machine reach the person's Beckon with an ask-only token. A second
//! `beckon serve` on a temporary folder stands in for the person's Beckon; the other machine is
//! a data folder with no gateway.json. The token is made with the real `beckon token create`;
//! then the real `beckon hook claude-code`, with only BECKON_URL and BECKON_TOKEN, puts a
//! permission prompt to the person, who allows it; and the real `beckon ask`, with only the
//! connection file `beckon remote ssh` prints how to write, asks and gets the answer. The same
//! token is refused everything but asking and following its own questions, is refused on its
//! next request once revoked with `beckon token revoke`, and is stored only hashed.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use beckon_api::QuestionStatus;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt;
use tokio::process::Command;

use crate::support::served;

/// The person's Beckon, where scripts may answer for the person (so the test can, over HTTP).
async fn persons_beckon() -> served::Served {
    served::Served::start_with("remote-test", |command| {
        command.env("BECKON_SCRIPTS_MAY_APPROVE", "1");
    })
    .await
}

/// `beckon token create --name NAME --ask-only` against `served`: the secret it printed.
async fn create_token(served: &served::Served, name: &str) -> String {
    let output = served::output(served.beckon().args(["token", "create", "--name", name, "--ask-only"])).await;
    assert!(output.status.success(), "{}", served::text(&output.stderr));
    let secret = served::text(&output.stdout).trim().to_owned();
    assert!(secret.starts_with("bkn_ask_") && !secret.contains('\n'), "the secret alone on stdout: {secret}");
    assert!(!served::text(&output.stderr).contains(&secret), "and nowhere else");
    secret
}

/// The binary on the other machine's data folder (no gateway.json), with nothing from the
/// environment but what the test gives it.
fn elsewhere(dir: &Path) -> Command {
    let mut command = served::beckon(dir);
    command.env_remove("BECKON_CONNECTION_FILE").env_remove("BECKON_SCRIPTS_MAY_APPROVE");
    command
}

/// The first pending question the person sees.
async fn pending(served: &served::Served) -> Value {
    served.first_pending("the question reaching the person", Duration::from_secs(30)).await
}

async fn finished(child: tokio::process::Child) -> std::process::Output {
    tokio::time::timeout(Duration::from_secs(60), child.wait_with_output()).await.unwrap().unwrap()
}

#[tokio::test]
async fn a_hook_on_another_machine_asks_with_an_ask_only_token_and_the_person_allows() {
    let served = persons_beckon().await;
    let secret = create_token(&served, "devbox").await;
    let other = tempfile::tempdir().unwrap();
    let event = json!({"session_id": "9f1c2d3e-4b5a-6c7d-8e9f-0a1b2c3d4e5f",
        "transcript_path": "/home/ada/.claude/projects/-home-ada-shop/9f1c2d3e.jsonl", "cwd": "/home/ada/shop",
        "permission_mode": "default", "hook_event_name": "PermissionRequest", "tool_name": "Bash",
        "tool_input": {"command": "npm test", "description": "Run the test suite"},
        "permission_suggestions": [{"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "npm test"}],
            "behavior": "allow", "destination": "localSettings"}]});
    let mut child = elsewhere(other.path())
        .args(["hook", "claude-code"])
        .env("BECKON_URL", &served.client.endpoint().url)
        .env("BECKON_TOKEN", &secret)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(event.to_string().as_bytes()).await.unwrap();
    drop(stdin);

    let question = pending(&served).await;
    assert_eq!(question["agent"], "claude-code");
    assert_eq!(question["input"]["approval"]["tool_name"], "Bash");
    let id = question["request_id"].as_str().unwrap();
    served.client.answer(id, &["Allow".into()]).await.unwrap();

    let output = finished(child).await;
    assert!(output.status.success(), "{}", served::text(&output.stderr));
    let printed: Value = serde_json::from_str(served::text(&output.stdout).trim()).unwrap();
    assert_eq!(printed["hookSpecificOutput"]["hookEventName"], "PermissionRequest");
    assert_eq!(printed["hookSpecificOutput"]["decision"]["behavior"], "allow", "{printed}");
    assert!(!other.path().join("gateway.json").exists());
}

/// Section 2 of what `beckon remote ssh` printed: the script to run on the other machine.
fn connection_script(printed: &str) -> String {
    let lines: Vec<&str> = printed.lines().collect();
    let start = lines.iter().position(|line| line.starts_with("# 2.")).expect("step 2") + 1;
    let end = lines.iter().position(|line| line.starts_with("# 3.")).expect("step 3");
    lines[start..end].join("\n") + "\n"
}

#[tokio::test]
async fn remote_ssh_prints_the_way_and_beckon_ask_there_asks_through_the_connection_file() {
    let served = persons_beckon().await;
    let port = served.client.endpoint().url.rsplit_once(':').unwrap().1.to_owned();
    let output = served::output(served.beckon().args(["remote", "ssh", "ada@devbox", "--agent", "claude-code"])).await;
    assert!(output.status.success(), "{}", served::text(&output.stderr));
    let printed = served::text(&output.stdout);
    let tunnel = format!("-R {port}:127.0.0.1:{port} ada@devbox");
    assert!(printed.lines().any(|line| line.starts_with("ssh ") && line.ends_with(&tunnel)), "{printed}");
    assert!(printed.contains("ServerAliveInterval=") && printed.contains("ExitOnForwardFailure=yes"), "{printed}");
    assert!(printed.lines().any(|line| line == "beckon setup claude-code"), "{printed}");
    assert!(!printed.contains("beckon setup codex"), "only the agent asked for");
    let listed = served::output(served.beckon().args(["token", "list", "--json"])).await;
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(listed["tokens"][0]["name"], "devbox", "a fresh token named after the host");

    // Step 2, run as the other machine would: the connection file in its data folder.
    let other = tempfile::tempdir().unwrap();
    let data = other.path().join("data");
    let mut sh = Command::new("sh");
    sh.env("BECKON_DATA_DIR", &data).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = sh.spawn().unwrap();
    child.stdin.take().unwrap().write_all(connection_script(&printed).as_bytes()).await.unwrap();
    let wrote = finished(child).await;
    assert!(wrote.status.success(), "{}", served::text(&wrote.stderr));
    let file = data.join("remote.json");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
    }
    let connection: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(connection["url"], format!("http://127.0.0.1:{port}"));

    let asking =
        elsewhere(&data).args(["ask", "Deploy to staging?", "-o", "Yes", "-o", "No", "--agent", "ci"]).spawn().unwrap();
    let question = pending(&served).await;
    assert_eq!(question["agent"], "ci");
    served.client.answer(question["request_id"].as_str().unwrap(), &["Yes".into()]).await.unwrap();
    let output = finished(asking).await;
    assert!(output.status.success(), "{}", served::text(&output.stderr));
    assert_eq!(served::text(&output.stdout).trim(), "Yes");

    // A connection file others may read is refused, with how to fix it.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let output = served::output(elsewhere(&data).args(["ask", "Again?", "-o", "Yes", "-o", "No"])).await;
        assert_eq!(output.status.code(), Some(1));
        assert!(served::text(&output.stderr).contains("chmod 600"), "{}", served::text(&output.stderr));
    }
}

#[tokio::test]
async fn an_ask_only_token_is_refused_all_else_and_at_once_when_revoked_and_is_stored_hashed() {
    let served = persons_beckon().await;
    let secret = create_token(&served, "devbox").await;
    let url = served.client.endpoint().url.clone();
    let http = reqwest::Client::new();
    let call = |method: Method, path: &str, body: Value| {
        let mut request = http.request(method, format!("{url}{path}")).bearer_auth(&secret);
        if !body.is_null() {
            request = request.json(&body);
        }
        request.send()
    };
    let kind = |response: reqwest::Response| async move {
        let status = response.status();
        let body: Value = response.json().await.unwrap();
        (status, body["error"]["kind"].as_str().unwrap_or_default().to_owned())
    };

    let approval = json!({"agent": "claude-code", "session_key": "claude-code:s1", "approval": {"tool_name": "Bash",
        "input": {"command": "rm -rf build"}, "project": "/home/ada/shop", "session": "s1"}});
    let created: Value = call(Method::POST, "/v1/questions", approval).await.unwrap().json().await.unwrap();
    let mine = created["request_id"].as_str().unwrap().to_owned();
    let theirs = served
        .client
        .ask(&json!({"agent": "cli", "questions": [{"question": "Lunch?", "options": [{"label": "Yes"}, {"label": "No"}]}]}))
        .await
        .unwrap()
        .request_id
        .to_string();

    let forbidden = [
        (Method::POST, format!("/v1/questions/{mine}/answer"), json!({"answer": "Allow"})),
        (Method::POST, format!("/v1/questions/{theirs}/answer"), json!({"answer": "Yes"})),
        (Method::POST, format!("/v1/questions/{mine}/decline"), json!({})),
        (Method::GET, "/v1/questions".to_owned(), Value::Null),
        (Method::GET, "/v1/questions?status=pending".to_owned(), Value::Null),
        (Method::GET, "/v1/events".to_owned(), Value::Null),
        (Method::GET, format!("/v1/sessions/{}", created["session_id"].as_str().unwrap()), Value::Null),
        (Method::POST, "/v1/tokens".to_owned(), json!({"name": "mine", "kind": "ask_only"})),
        (Method::GET, "/v1/tokens".to_owned(), Value::Null),
        (Method::DELETE, "/v1/tokens/devbox".to_owned(), Value::Null),
    ];
    for (method, path, body) in forbidden {
        let refused = kind(call(method.clone(), &path, body).await.unwrap()).await;
        assert_eq!(refused, (StatusCode::FORBIDDEN, "forbidden".into()), "{method} {path}");
    }
    // Another's question is as good as none: 404, so ids cannot be probed.
    for (method, path) in
        [(Method::GET, format!("/v1/questions/{theirs}")), (Method::POST, format!("/v1/questions/{theirs}/cancel"))]
    {
        let refused = kind(call(method.clone(), &path, json!({})).await.unwrap()).await;
        assert_eq!(refused, (StatusCode::NOT_FOUND, "not_found".into()), "{method} {path}");
    }
    for id in [&mine, &theirs] {
        assert_eq!(
            served.client.question(id, Duration::ZERO).await.unwrap().status,
            QuestionStatus::Pending,
            "untouched"
        );
    }
    // The CLI's token commands with the ask-only token are refused too.
    let output = served::output(
        elsewhere(tempfile::tempdir().unwrap().path())
            .args(["token", "list"])
            .env("BECKON_URL", &url)
            .env("BECKON_TOKEN", &secret),
    )
    .await;
    assert_eq!(output.status.code(), Some(1));
    assert!(served::text(&output.stderr).contains("ask-only token"), "{}", served::text(&output.stderr));

    // Its own question it reads and withdraws.
    let read = call(Method::GET, &format!("/v1/questions/{mine}"), Value::Null).await.unwrap();
    assert_eq!(read.status(), StatusCode::OK);

    let revoked = served::output(served.beckon().args(["token", "revoke", "devbox"])).await;
    assert!(revoked.status.success(), "{}", served::text(&revoked.stderr));
    let next = kind(call(Method::GET, &format!("/v1/questions/{mine}"), Value::Null).await.unwrap()).await;
    assert_eq!(next, (StatusCode::UNAUTHORIZED, "unauthorized".into()), "refused on its very next request");
    let listed = served::output(served.beckon().args(["token", "list"])).await;
    assert!(served::text(&listed.stdout).starts_with("No tokens"), "{}", served::text(&listed.stdout));

    // Stored only hashed: the secret is in no file of the data folder, and its SHA-256 is.
    let mut stored = Vec::new();
    for entry in std::fs::read_dir(served.dir.path()).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            stored.extend(std::fs::read(&path).unwrap());
        }
    }
    let hex = secret.trim_start_matches("bkn_ask_");
    assert!(!stored.windows(hex.len()).any(|w| w == hex.as_bytes()), "the secret is not stored");
    let db = rusqlite::Connection::open(served.dir.path().join("beckon.db")).unwrap();
    let hash: Vec<u8> =
        db.query_row("SELECT secret_hash FROM tokens WHERE name = 'devbox'", [], |row| row.get(0)).unwrap();
    assert_eq!(hash, Sha256::digest(secret.as_bytes()).to_vec());
}

/// Another machine for `beckon remote ssh --install`: `ssh` and `scp` stand-ins (first on the
/// PATH they return) that run commands in `home`, with none of this machine's environment and,
/// on PATH, only the few system tools a fresh box has (so no `beckon`, even when this machine
/// has one installed).
#[cfg(unix)]
fn other_machine(root: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let home = root.join("devbox-home");
    let tools = root.join("devbox-tools");
    let bin = root.join("here-bin");
    for dir in [&home, &tools, &bin] {
        std::fs::create_dir_all(dir).unwrap();
    }
    for tool in ["sh", "uname", "mkdir", "cat", "chmod"] {
        let found = ["/bin", "/usr/bin"].iter().map(|dir| Path::new(dir).join(tool)).find(|path| path.exists());
        std::os::unix::fs::symlink(found.expect("a system tool"), tools.join(tool)).unwrap();
    }
    let ssh = format!(
        "#!/bin/sh\n[ \"$1\" = -- ] && shift\necho \"$1\" >> '{log}'\nshift\ncd '{home}' || exit 255\n\
         exec /usr/bin/env -i HOME='{home}' PATH='{tools}' /bin/sh -c \"$*\"\n",
        log = root.join("hosts").display(),
        home = home.display(),
        tools = tools.display(),
    );
    let scp = format!(
        "#!/bin/sh\n[ \"$1\" = -q ] && shift\n[ \"$1\" = -- ] && shift\ncd '{home}' && /bin/cp \"$1\" \"${{2#*:}}\"\n",
        home = home.display(),
    );
    for (name, text) in [("ssh", ssh), ("scp", scp)] {
        std::fs::write(bin.join(name), text).unwrap();
        std::fs::set_permissions(bin.join(name), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    (bin, home)
}

#[cfg(unix)]
#[tokio::test]
async fn remote_ssh_install_copies_beckon_writes_the_connection_file_and_connects_the_agents_there() {
    use std::os::unix::fs::PermissionsExt;
    let served = persons_beckon().await;
    let root = tempfile::tempdir().unwrap();
    let (bin, home) = other_machine(root.path());
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let output = served::output(
        served.beckon().args(["remote", "ssh", "ada@devbox", "--install", "--agent", "claude-code"]).env("PATH", &path),
    )
    .await;
    assert!(output.status.success(), "{}", served::text(&output.stderr));
    let hosts = std::fs::read_to_string(root.path().join("hosts")).unwrap();
    assert!(hosts.lines().all(|host| host == "ada@devbox") && hosts.lines().count() >= 3, "{hosts}");
    let printed = served::text(&output.stdout);
    assert!(printed.contains("-R ") && printed.contains("ada@devbox"), "it still says which tunnel to keep: {printed}");

    // The box had no beckon: this one was copied there, runnable.
    let copied = home.join(".local/bin/beckon");
    assert_eq!(std::fs::read(&copied).unwrap(), std::fs::read(env!("CARGO_BIN_EXE_beckon")).unwrap());
    assert_eq!(std::fs::metadata(&copied).unwrap().permissions().mode() & 0o111, 0o111);
    // The connection file, private, with a token the person's Beckon lists.
    let file = home.join(".local/share").join(beckon_runtime::APP_ID).join("remote.json");
    assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
    let connection: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert!(connection["token"].as_str().unwrap().starts_with("bkn_ask_"), "{connection}");
    let listed = served::output(served.beckon().args(["token", "list", "--json"])).await;
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(listed["tokens"][0]["name"], "devbox");
    // Claude Code there runs the copied beckon's hook.
    let settings: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join(".claude/settings.json")).unwrap()).unwrap();
    let hook = settings["hooks"]["PermissionRequest"][0]["hooks"][0]["command"].as_str().unwrap().to_owned();
    assert!(hook.ends_with(".local/bin/beckon hook claude-code") && hook.contains("devbox-home"), "{hook}");

    // And from there, with nothing but that home, a question reaches the person.
    let asking = Command::new(&copied)
        .args(["ask", "Deploy from the box?", "-o", "Yes", "-o", "No"])
        .env_clear()
        .env("HOME", &home)
        .current_dir(&home)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let question = pending(&served).await;
    assert_eq!(question["input"]["questions"][0]["question"], "Deploy from the box?");
    served.client.answer(question["request_id"].as_str().unwrap(), &["No".into()]).await.unwrap();
    let output = finished(asking).await;
    assert!(output.status.success(), "{}", served::text(&output.stderr));
    assert_eq!(served::text(&output.stdout).trim(), "No");
}

#[tokio::test]
async fn a_token_made_for_a_person_or_group_says_so_and_a_bad_audience_is_refused() {
    let served = persons_beckon().await;
    let output = served::output(served.beckon().args([
        "token",
        "create",
        "--name",
        "ada-laptop",
        "--ask-only",
        "--for",
        "person:ada",
        "--json",
    ]))
    .await;
    assert!(output.status.success(), "{}", served::text(&output.stderr));
    let made: Value = serde_json::from_str(&served::text(&output.stdout)).unwrap();
    assert_eq!(made["token"]["owner"], "person:ada");
    let listed = served::output(served.beckon().args(["token", "list"])).await;
    let table = served::text(&listed.stdout);
    assert!(table.lines().any(|line| line.starts_with("ada-laptop") && line.contains("person:ada")), "{table}");
    let refused =
        served::output(served.beckon().args(["token", "create", "--name", "x", "--ask-only", "--for", "ada"])).await;
    assert!(!refused.status.success());
    assert!(
        served::text(&refused.stderr).contains("person:<subject> or group:<name>"),
        "{}",
        served::text(&refused.stderr)
    );
}
