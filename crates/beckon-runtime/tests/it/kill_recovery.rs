//! A runtime killed with SIGKILL while a request to the provider is in flight: on restart
//! the turn completes, and every tool_use has exactly one tool_result (completed tools are
//! not run again).

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use beckon_core::SessionId;
use beckon_core::conversation::{Message, SessionStatus};
use beckon_runtime::{ProviderSettings, RuntimeConfig};
use beckon_testkit::fake_llm::{FakeLlm, Reply};
use serde_json::json;

use crate::support::*;

#[tokio::test]
async fn a_turn_interrupted_by_sigkill_completes_after_restart() {
    let dir = tempfile::tempdir().unwrap();
    let agents = dir.path().join("agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("deployer.md"),
        "---\nname: deployer\nprovider: anthropic\ntools: [read_file, write_file]\n---\nDeploy.",
    )
    .unwrap();
    let fake = FakeLlm::start().await;
    fake.push(Reply::tools(
        "",
        &[("write_file", json!({"path": "log.txt", "content": "once"})), ("read_file", json!({"path": "log.txt"}))],
    ));
    fake.push(Reply::Hold);
    fake.push(Reply::text("all done"));

    let mut child = Command::new(env!("CARGO_BIN_EXE_beckon-runtime-kill-worker"))
        .arg(dir.path())
        .arg(&fake.url)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let session: SessionId = line.trim().parse().unwrap();
    // The second request is in flight (the fake holds it) when the process dies.
    fake.wait_for(2, PATIENCE).await;
    child.kill().unwrap();
    child.wait().unwrap();

    let mut config = RuntimeConfig::new(dir.path());
    config.anthropic =
        ProviderSettings { api_key: Some("test-key".into()), base_url: Some(fake.url.clone()), model: None };
    let (beckon, _) = start_with(config).await;
    wait_status(&beckon, session, SessionStatus::Completed).await;
    assert_eq!(fake.received().len(), 3, "the interrupted request was issued again, once");
    assert_every_tool_use_answered_once(&beckon, session).await;
    let view = beckon.inbox().session(session).await.unwrap();
    let writes = view
        .timeline
        .iter()
        .filter(|e| matches!(&e.message, Message::ToolUse { call } if call.name == "write_file"))
        .count();
    assert_eq!(writes, 1);
    assert_eq!(last_words(&beckon, session).await, "all done");
    let log = std::fs::read_to_string(dir.path().join("workspaces").join(session.to_string()).join("log.txt")).unwrap();
    assert_eq!(log, "once");
}
