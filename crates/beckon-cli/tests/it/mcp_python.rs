//! Beckon's MCP server driven by the official Python MCP SDK: over streamable HTTP at the
//! gateway's `/mcp`, and over stdio through `beckon mcp`. The SDK is installed once into a venv
//! under `target/` (network access to PyPI the first time).

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use beckon_gateway::{Discovery, GatewayClient, GatewayConfig, Locator, RunningGateway};
use beckon_runtime::{Beckon, RuntimeConfig, StartOptions};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};

use crate::support::python::venv_python;

struct Running {
    dir: tempfile::TempDir,
    beckon: Beckon,
    gateway: RunningGateway,
}

async fn start() -> Running {
    let dir = tempfile::tempdir().unwrap();
    let beckon = Beckon::start(RuntimeConfig::new(dir.path()), StartOptions::default()).await.unwrap();
    let mut config = GatewayConfig::new(dir.path());
    config.port = 0;
    let gateway = beckon_gateway::start(beckon.clone(), config).await.unwrap();
    Running { dir, beckon, gateway }
}

/// Answers one question as the script asks, once it is pending; the answered question's view.
async fn answer(client: GatewayClient, instruction: Value) -> Value {
    let texts: Vec<String> = serde_json::from_value(instruction["with"].clone()).unwrap();
    let id = match instruction["request_id"].as_str() {
        Some(id) => id.to_owned(),
        None => {
            let text = instruction["question"].as_str().unwrap();
            let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
            loop {
                let pending = client.pending().await.unwrap();
                let found = pending.iter().find(|q| q.input.items()[0].question() == text);
                if let Some(found) = found {
                    break found.request_id.to_string();
                }
                assert!(tokio::time::Instant::now() < deadline, "{text:?} never became pending");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    };
    tokio::time::sleep(Duration::from_millis(instruction["after_ms"].as_u64().unwrap_or(0))).await;
    serde_json::to_value(client.answer(&id, &texts).await.unwrap()).unwrap()
}

/// Runs the script in `mode`, answering what it asks; how many checks it made, and the views of
/// the questions it had answered.
async fn run_client(dir: &Path, mode: &str, first: &str, second: &str) -> (u64, Vec<Value>) {
    let python = tokio::task::spawn_blocking(venv_python).await.unwrap();
    let schema = dir.join("expected-schema.json");
    std::fs::write(&schema, beckon_runtime::tools::ask_user_question_spec().input_schema.to_string()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("mcp_client.py");
    let mut child = tokio::process::Command::new(python)
        .arg(script)
        .args([mode, first, second])
        .arg(&schema)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let stderr = tokio::spawn(async move {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text).await;
        text
    });
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let http = GatewayClient::http().unwrap();
    let mut answering = Vec::new();
    let mut done = None;
    let reading = async {
        while let Some(line) = lines.next_line().await.unwrap() {
            let message: Value = serde_json::from_str(&line).unwrap_or_else(|_| panic!("not JSON: {line}"));
            if message.get("answer").is_some() {
                let endpoint = Locator::new(dir).locate().unwrap();
                let client = GatewayClient::new(http.clone(), endpoint, "test");
                answering.push(tokio::spawn(answer(client, message["answer"].clone())));
            } else if let Some(checks) = message["done"].as_u64() {
                done = Some(checks);
            }
        }
        child.wait().await.unwrap()
    };
    let status = tokio::time::timeout(Duration::from_secs(300), reading).await.expect("the MCP client hung");
    let stderr = stderr.await.unwrap();
    assert!(status.success(), "the MCP client failed ({status}):\n{stderr}");
    let checks = done.unwrap_or_else(|| panic!("the script did not finish its checks\n{stderr}"));
    let mut views = Vec::new();
    for task in answering {
        views.push(task.await.unwrap());
    }
    (checks, views)
}

/// What the Rust side sees of the questions the script asked: who asked, and how they group.
fn check_sessions(views: &[Value]) {
    let view = |text: &str| {
        views.iter().find(|v| v["input"]["questions"][0]["question"] == text).unwrap_or_else(|| panic!("{text}"))
    };
    for view in views {
        assert_eq!(view["status"], "answered", "{view}");
        assert_eq!(view["agent"], "beckon-test-client", "the client's name, sanitised: {view}");
    }
    let session = |text: &str| view(text)["session_id"].as_str().unwrap().to_owned();
    assert_eq!(session("Which database?"), session("Deploy now?"), "one MCP session, one Beckon session");
    assert_eq!(session("Which database?"), session("First of two?"));
    assert_ne!(session("First of two?"), session("Second of two?"), "a second waiting question gets its own");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_over_streamable_http() {
    let running = start().await;
    let (url, token) = (running.gateway.url.clone(), running.gateway.token.clone());
    let (checks, views) = run_client(running.dir.path(), "http", &url, &token).await;
    assert!(checks > 30, "{checks} checks");
    assert_eq!(views.len(), 5, "every question the script asked was answered");
    check_sessions(&views);
    assert!(running.beckon.inbox().pending().await.unwrap().is_empty(), "nothing left waiting");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_over_stdio_through_beckon_mcp() {
    let running = start().await;
    assert!(Discovery::read(running.dir.path()).is_ok());
    let data_dir = running.dir.path().to_str().unwrap().to_owned();
    let (checks, views) = run_client(running.dir.path(), "stdio", env!("CARGO_BIN_EXE_beckon"), &data_dir).await;
    assert!(checks > 30, "{checks} checks");
    assert_eq!(views.len(), 5);
    check_sessions(&views);
    running.gateway.stop();
    running.beckon.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn beckon_mcp_starts_without_beckon_and_says_it_is_not_running() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("empty").to_str().unwrap().to_owned();
    let (checks, views) = run_client(dir.path(), "down", env!("CARGO_BIN_EXE_beckon"), &data_dir).await;
    assert_eq!((checks, views.len()), (2, 0));
}
