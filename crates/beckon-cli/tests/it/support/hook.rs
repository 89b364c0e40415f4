//! Claude Code's hook run as Claude Code runs it: `beckon hook claude-code` with the event on
//! its standard input, then what it printed once it ended.

use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::io::AsyncWriteExt;
use tokio::process::{Child, Command};

use super::served::text;

/// Starts `command` (a `beckon`) as `beckon hook claude-code` with `event` on its standard
/// input, then closed.
pub async fn start(command: &mut Command, event: &Value) -> Child {
    let mut hook = command.args(["hook", "claude-code"]).stdin(Stdio::piped()).spawn().unwrap();
    let mut stdin = hook.stdin.take().unwrap();
    stdin.write_all(event.to_string().as_bytes()).await.unwrap();
    drop(stdin);
    hook
}

/// What the hook printed on standard output and on standard error, once it ended (within
/// `within`), which must be a success.
pub async fn ended(hook: Child, within: Duration) -> (String, String) {
    let output = tokio::time::timeout(within, hook.wait_with_output()).await.expect("the hook still waits").unwrap();
    let said = text(&output.stderr);
    assert!(output.status.success(), "{said}");
    (text(&output.stdout), said)
}

/// The decision the hook printed, as Claude Code reads it, once it ended (within `within`), and
/// what it said on standard error.
pub async fn decision(hook: Child, within: Duration) -> (Value, String) {
    let (printed, said) = ended(hook, within).await;
    println!("the hook said:\n{said}");
    let decision = serde_json::from_str(printed.trim())
        .unwrap_or_else(|err| panic!("the hook printed no decision ({err}); its stderr:\n{said}"));
    (decision, said)
}
