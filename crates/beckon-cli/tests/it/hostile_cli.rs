//! The hostile-input corpus (`tests/hostile/cli.json` and `texts.json`) through the `beckon`
//! binary against `beckon serve`: arguments (some not UTF-8) and `beckon mcp`'s stdin. Every
//! refusal exits 1 with its reason on stderr and writes nothing; hostile text that is allowed
//! comes back byte-for-byte.

use beckon_testkit::corpus;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::process::{Output, Stdio};
use std::time::Duration;

use beckon_api::QuestionStatus;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::support::served::{Served, output, text};

const UNKNOWN: &str = "0190f1d2-0000-7000-8000-00000000beef";
const TABLES: [&str; 5] = ["sessions", "messages", "questions", "events", "outbox"];

impl Served {
    /// A pending question with options "Yes" and "No"; its id.
    async fn question(&self) -> String {
        let body = json!({"agent": "fixture", "questions": [{"question": "Proceed?",
            "options": [{"label": "Yes"}, {"label": "No"}]}]});
        self.client.ask(&body).await.unwrap().request_id.to_string()
    }

    fn counts(&self) -> BTreeMap<&'static str, i64> {
        let db = rusqlite::Connection::open_with_flags(
            self.dir.path().join("beckon.db"),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .unwrap();
        let integrity: String = db.query_row("PRAGMA integrity_check", [], |row| row.get(0)).unwrap();
        assert_eq!(integrity, "ok");
        TABLES
            .iter()
            .map(|table| {
                (*table, db.query_row(&format!("SELECT count(*) FROM {table}"), [], |row| row.get(0)).unwrap())
            })
            .collect()
    }
}

/// An argument from its spec, with the placeholders filled in; not necessarily UTF-8.
fn argument(spec: &Value, question: &str) -> OsString {
    let bytes = corpus::bytes(spec);
    match String::from_utf8(bytes) {
        Ok(text) => text.replace("{question}", question).replace("{unknown}", UNKNOWN).into(),
        Err(err) => OsString::from_vec(err.into_bytes()),
    }
}

fn check_output(name: &str, expect: &Value, out: &Output) {
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    let code = i64::from(out.status.code().expect("exited, not killed"));
    assert_eq!(code, expect["exit"].as_i64().unwrap(), "{name}: stderr {stderr}");
    if let Some(part) = expect["stderr_contains"].as_str() {
        assert!(stderr.starts_with("error: "), "{name}: {stderr}");
        assert!(stderr.contains(part), "{name}: {part:?} not in {stderr}");
    }
    if let Some(part) = expect["stdout_contains"].as_str() {
        assert!(stdout.contains(part), "{name}: {part:?} not in {stdout}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_arguments_exit_1_with_the_reason_and_write_nothing() {
    let served = Served::start("hostile-test").await;
    for case in corpus::cases("cli.json") {
        let name = corpus::name(&case);
        let question = served.question().await;
        let before = served.counts();
        let args: Vec<OsString> = case["args"].as_array().unwrap().iter().map(|a| argument(a, &question)).collect();
        let out = output(served.beckon().args(&args)).await;
        check_output(name, &case["expect"], &out);
        assert_eq!(served.counts(), before, "{name}: the database changed");
        let view = served.client.question(&question, Duration::ZERO).await.unwrap();
        assert_eq!(view.status, QuestionStatus::Pending, "{name}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_text_asked_and_answered_from_the_command_line_comes_back_byte_for_byte() {
    let served = Served::start("hostile-test").await;
    let texts: Vec<(String, String)> = corpus::texts("accepted")
        .into_iter()
        .filter(|(_, text)| corpus::single_line(text) && text.len() <= 200 && text.trim() == text)
        .collect();
    assert!(texts.len() >= 15, "most accepted texts fit an option label");
    for (name, hostile) in &texts {
        let key = format!("hostile-{name}").replace('_', "-");
        let mut asking = served
            .beckon()
            .args(["ask", hostile, "-o", hostile, "-o", "Plain", "--session-key", &key])
            .spawn()
            .unwrap();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        let id = loop {
            let pending = served.client.pending().await.unwrap();
            if let Some(found) = pending.iter().find(|q| q.input.items()[0].question() == hostile) {
                break found.request_id.to_string();
            }
            if let Some(status) = asking.try_wait().unwrap() {
                panic!("{name}: beckon ask exited with {status} before its question was pending");
            }
            assert!(tokio::time::Instant::now() < deadline, "{name}: never became pending");
            tokio::time::sleep(Duration::from_millis(25)).await;
        };
        let answered = output(served.beckon().args(["answer", &id, hostile])).await;
        assert_eq!(answered.status.code(), Some(0), "{name}: {}", text(&answered.stderr));
        assert_eq!(answered.stdout, format!("{hostile}\n").into_bytes(), "{name}");
        let asked = tokio::time::timeout(Duration::from_secs(60), asking.wait_with_output()).await.unwrap().unwrap();
        assert_eq!(asked.status.code(), Some(0), "{name}: {}", text(&asked.stderr));
        assert_eq!(asked.stdout, format!("{hostile}\n").into_bytes(), "{name}: printed exactly");
        let view = served.client.question(&id, Duration::ZERO).await.unwrap();
        let outcome = serde_json::to_value(&view.outcome).unwrap();
        assert_eq!(outcome["answers"][0]["selected"], json!([hostile]), "{name}: stored as given");
    }
}

const HANDSHAKE: [&str; 2] = [
    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_stdin_for_beckon_mcp_is_skipped_or_refused_as_a_tool_error() {
    let served = Served::start("hostile-test").await;
    let cases = corpus::load("cli.json")["stdin"].as_array().unwrap().clone();
    assert!(!cases.is_empty());
    for case in &cases {
        let name = corpus::name(case);
        let expect = &case["expect"];
        let before = served.counts();
        let mut child = served.beckon().arg("mcp").stdin(Stdio::piped()).spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut input: Vec<u8> = Vec::new();
        if case["handshake"] == true {
            for line in HANDSHAKE {
                input.extend_from_slice(line.as_bytes());
                input.push(b'\n');
            }
        }
        for line in case["lines"].as_array().unwrap() {
            input.extend(corpus::bytes(line));
            input.push(b'\n');
        }
        stdin.write_all(&input).await.unwrap();
        let mut replies: BTreeMap<i64, Value> = BTreeMap::new();
        let wanted: Vec<i64> = expect["responds_to"]
            .as_array()
            .map(|ids| ids.iter().filter_map(Value::as_i64).collect())
            .unwrap_or_default();
        if !wanted.is_empty() {
            let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
            while !wanted.iter().all(|id| replies.contains_key(id)) {
                let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
                    .await
                    .unwrap_or_else(|_| panic!("{name}: no reply"))
                    .unwrap()
                    .unwrap_or_else(|| panic!("{name}: stdout closed before every reply"));
                let reply: Value = serde_json::from_str(&line).unwrap();
                if let Some(id) = reply["id"].as_i64() {
                    replies.insert(id, reply);
                }
            }
        }
        drop(stdin);
        let out = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output()).await.unwrap().unwrap();
        check_output(name, expect, &out);
        if let Some(part) = expect["tool_error_contains"].as_str() {
            let id = wanted.last().unwrap();
            let result = &replies[id]["result"];
            assert_eq!(result["isError"], true, "{name}: {result}");
            let message = result["content"][0]["text"].as_str().unwrap_or_default();
            assert!(message.contains(part), "{name}: {part:?} not in {message}");
        }
        assert_eq!(served.counts(), before, "{name}: the database changed");
    }
}
