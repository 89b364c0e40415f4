//! Beckon's own clients reach it over its private socket, so that another local user holding
//! every TCP connection the gateway allows (no token needed for that) cannot cut off
//! `beckon status`, `beckon ask` or Claude Code's hooks: with 300 idle TCP connections kept open
//! against `beckon serve`, all three still work, and the socket is its owner's alone.

#![cfg(unix)]

use std::net::SocketAddr;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::task::JoinHandle;

use crate::support::served::{Served, output, text};

/// More connections than the gateway's TCP cap (256).
const FLOOD: usize = 300;

/// Idle TCP connections to one address, each opened again as soon as the gateway closes it (as
/// one that sent no request is, after the header time limit): the gateway's TCP side stays full.
struct Flood(Vec<JoinHandle<()>>);

impl Flood {
    fn start(addr: SocketAddr, count: usize) -> Flood {
        let holders = (0..count)
            .map(|_| {
                tokio::spawn(async move {
                    loop {
                        if let Ok(mut stream) = TcpStream::connect(addr).await {
                            let mut byte = [0u8; 64];
                            while matches!(stream.read(&mut byte).await, Ok(n) if n > 0) {}
                        }
                        // Not a busy loop: the connections over the cap are closed at once.
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                })
            })
            .collect();
        Flood(holders)
    }
}

impl Drop for Flood {
    fn drop(&mut self) {
        for holder in &self.0 {
            holder.abort();
        }
    }
}

/// The gateway's TCP address, as `gateway.json` gives it.
fn tcp_addr(served: &Served) -> SocketAddr {
    let found: Value = serde_json::from_slice(&std::fs::read(served.dir.path().join("gateway.json")).unwrap()).unwrap();
    found["url"].as_str().unwrap().trim_start_matches("http://").parse().unwrap()
}

/// Whether a health request over TCP gets an answer within a few seconds.
async fn tcp_answers(served: &Served) -> bool {
    let found: Value = serde_json::from_slice(&std::fs::read(served.dir.path().join("gateway.json")).unwrap()).unwrap();
    let request = reqwest::Client::new()
        .get(format!("{}/v1/health", found["url"].as_str().unwrap()))
        .bearer_auth(found["token"].as_str().unwrap())
        .timeout(Duration::from_secs(3))
        .send();
    matches!(request.await, Ok(response) if response.status().is_success())
}

/// The first pending question, once there is one.
async fn first_pending(served: &Served) -> Value {
    served.first_pending("the question becoming pending", Duration::from_secs(30)).await
}

async fn finished(child: tokio::process::Child) -> std::process::Output {
    tokio::time::timeout(Duration::from_secs(60), child.wait_with_output()).await.expect("it hung").unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_ask_and_the_hook_work_while_tcp_is_flooded() {
    let served = Served::start("socket-test").await;
    let _flood = Flood::start(tcp_addr(&served), FLOOD);
    // Once the flood holds every TCP place, a request over TCP gets no answer.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while tcp_answers(&served).await {
        assert!(tokio::time::Instant::now() < deadline, "the flood never filled the gateway's TCP side");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let status = output(served.beckon().arg("status")).await;
    assert_eq!(status.status.code(), Some(0), "{}", text(&status.stderr));
    let said = text(&status.stdout);
    let socket = served.dir.path().join("gateway.sock");
    assert!(said.contains(&format!("Reached through: {}", socket.display())), "{said}");
    assert!(said.contains("Pending questions: 0"), "{said}");

    let asking = served.beckon().args(["ask", "Over the socket?", "-o", "Yes", "-o", "No"]).spawn().unwrap();
    let question = first_pending(&served).await;
    served.client.answer(question["request_id"].as_str().unwrap(), &["Yes".into()]).await.unwrap();
    let asked = finished(asking).await;
    assert_eq!(asked.status.code(), Some(0), "{}", text(&asked.stderr));
    assert_eq!(text(&asked.stdout), "Yes\n");

    let event = json!({"session_id": "5b0c", "cwd": "/home/ada/shop", "permission_mode": "default",
        "hook_event_name": "PermissionRequest", "tool_name": "Bash",
        "tool_input": {"command": "rm -rf build", "description": "Clean the build"}});
    let mut hook = served.beckon().args(["hook", "claude-code"]).stdin(Stdio::piped()).spawn().unwrap();
    let mut stdin = hook.stdin.take().unwrap();
    stdin.write_all(event.to_string().as_bytes()).await.unwrap();
    drop(stdin);
    let approval = first_pending(&served).await;
    assert_eq!(approval["input"]["approval"]["tool_name"], "Bash");
    served.client.answer(approval["request_id"].as_str().unwrap(), &["Deny".into()]).await.unwrap();
    let hooked = finished(hook).await;
    assert!(hooked.status.success(), "{}", text(&hooked.stderr));
    let printed: Value = serde_json::from_slice(&hooked.stdout).unwrap_or(Value::Null);
    assert_eq!(
        printed["hookSpecificOutput"]["decision"]["behavior"],
        "deny",
        "the hook answered Claude Code: {}; {}",
        text(&hooked.stdout),
        text(&hooked.stderr)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_socket_is_its_owners_alone_and_gateway_json_names_it() {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    let served = Served::start("socket-test").await;
    let found: Value = serde_json::from_slice(&std::fs::read(served.dir.path().join("gateway.json")).unwrap()).unwrap();
    let socket = std::path::PathBuf::from(found["socket"].as_str().expect("gateway.json names the socket"));
    assert_eq!(socket.parent().unwrap(), served.dir.path(), "the socket is in the data folder");
    let meta = std::fs::symlink_metadata(&socket).unwrap();
    assert!(meta.file_type().is_socket());
    assert_eq!(meta.permissions().mode() & 0o777, 0o600, "the socket");
    let folder = std::fs::metadata(served.dir.path()).unwrap().permissions().mode();
    assert_eq!(folder & 0o777, 0o700, "the data folder");
}
