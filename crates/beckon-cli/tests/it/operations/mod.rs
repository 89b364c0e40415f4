//! Running a server, as the book's operations page (docs/src/team-server/operations.md) tells an
//! operator to: Prometheus metrics on a listener of their own that move with the work and pass
//! `promtool check metrics`; the packaged systemd unit, checked by `systemd-analyze`; a `pg_dump`
//! restored into a new database that a replica then serves; what a replica does when a newer
//! Beckon has migrated its database; and rotating the admin token and the callback secret with
//! the commands the page gives, its shell blocks read through `docs::book` and run.
//!
//! The tools are the system's own (`promtool` from Debian's `prometheus`, `systemd-analyze`,
//! PostgreSQL's `pg_dump`, `pg_restore` and `psql`, all installed by scripts/install-deps); a
//! test whose tool is missing fails, saying which.

mod backup;
mod metrics;
mod rotation;
mod systemd;
mod upgrade;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use beckon_testkit::eventually;
use serde_json::{Value, json};

use crate::support::postgres::database;
use crate::support::server::{Endpoint, Server};

/// How long a test waits for something [`eventually`] before failing.
const PATIENCE: Duration = Duration::from_secs(30);

/// A `beckon serve` of the test's own, with its data folder.
struct Replica {
    server: Server,
    _dir: tempfile::TempDir,
}

impl Replica {
    /// `beckon serve` with `args`, on a data folder of its own.
    async fn start(args: &[&str]) -> Replica {
        let dir = tempfile::tempdir().unwrap();
        let (data, logs) = (dir.path().join("data"), dir.path().join("logs"));
        std::fs::create_dir_all(&logs).unwrap();
        let server = Server::start_pairing(&data, &logs, args, false).await;
        Replica { server, _dir: dir }
    }

    /// Where it listens now (a new port and token after each start).
    fn endpoint(&self) -> Endpoint {
        self.server.watch().borrow().endpoint.clone().unwrap()
    }

    /// A request with `token`.
    fn with_token(&self, method: reqwest::Method, path: &str, token: &str) -> reqwest::RequestBuilder {
        http().request(method, format!("{}{path}", self.endpoint().url)).bearer_auth(token)
    }

    /// A request with this start's own token.
    fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.with_token(method, path, &self.endpoint().token)
    }

    /// Asks a question in the session `key` (with more fields in the body); its id.
    async fn ask(&self, key: &str, more: Value) -> String {
        let mut body = json!({
            "agent": "release-bot",
            "session_key": key,
            "questions": [{
                "question": "Ship build 42 to production?",
                "header": "Ship",
                "multiSelect": false,
                "options": [{"label": "Yes", "description": "Ship it"}, {"label": "No", "description": "Hold it"}],
            }],
        });
        if let (Some(body), Some(more)) = (body.as_object_mut(), more.as_object()) {
            body.extend(more.clone());
        }
        let asked = self.request(reqwest::Method::POST, "/v1/questions").json(&body).send().await.unwrap();
        assert_eq!(asked.status(), 201);
        let asked: Value = asked.json().await.unwrap();
        asked["request_id"].as_str().unwrap().to_owned()
    }

    /// Answers question `id` with `label`.
    async fn answer(&self, id: &str, label: &str) -> Value {
        let path = format!("/v1/questions/{id}/answer");
        let answered = self.request(reqwest::Method::POST, &path).json(&json!({"answers": [label]})).send().await;
        let answered = answered.unwrap();
        assert_eq!(answered.status(), 200);
        answered.json().await.unwrap()
    }

    /// The status of an unauthenticated `GET path` (`/livez`, `/readyz`).
    async fn probe(&self, path: &str) -> u16 {
        http().get(format!("{}{path}", self.endpoint().url)).send().await.unwrap().status().as_u16()
    }
}

fn http() -> reqwest::Client {
    reqwest::Client::builder().no_proxy().build().unwrap()
}

/// Runs `command` to success (off the test's async threads); what it printed on standard output.
async fn run(mut command: Command) -> String {
    tokio::task::spawn_blocking(move || {
        let program = command.get_program().to_string_lossy().into_owned();
        let output = command.output().unwrap_or_else(|err| {
            panic!("cannot run {program}: {err} (scripts/install-deps installs the tools these tests use)")
        });
        assert!(
            output.status.success(),
            "{program} failed ({}):\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    })
    .await
    .unwrap()
}

/// `psql URL -Atc SQL`, as the operations page gives it: its output, trimmed.
async fn psql(url: &str, sql: &str) -> String {
    let mut command = Command::new("psql");
    command.args(["--no-psqlrc", "-v", "ON_ERROR_STOP=1", url, "-Atc", sql]);
    run(command).await.trim().to_owned()
}

/// The book's page of operations, whose shell blocks these tests run.
const NOTES: &str = "docs/src/team-server/operations.md";

/// Runs `script`, read from the operations page by `book::block` (and so marked as run by the
/// test that read it), with `env` and in `dir`, as `bash -euo pipefail`: what it printed.
async fn documented(script: &str, env: &[(&str, &str)], dir: &Path) -> String {
    let mut bash = Command::new("bash");
    bash.args(["-euo", "pipefail", "-c", script]).current_dir(dir);
    for (name, value) in env {
        bash.env(name, value);
    }
    run(bash).await
}

/// The fenced block of the operations page whose first line is `first` (a file's name in a
/// comment), that line included.
fn notes_block(first: &str) -> String {
    let notes = std::fs::read_to_string(repo().join(NOTES)).unwrap();
    let start = notes.find(&format!("\n{first}\n")).unwrap_or_else(|| panic!("no block starts with {first}")) + 1;
    let end = notes[start..].find("\n```").unwrap() + start;
    notes[start..=end].to_owned()
}

/// The admin token a replica's first start printed on standard output.
fn admin_token(printed: &str) -> String {
    let line = printed.lines().find(|line| line.starts_with("Admin token")).unwrap_or_else(|| panic!("{printed}"));
    line.rsplit(' ').next().unwrap().to_owned()
}

/// The repository's root.
fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}
