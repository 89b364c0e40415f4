//! What `beckon hook claude-code` adds to a tool call: the real binary run the way Claude Code
//! runs it (a fresh process, the event on stdin, waited for), with Beckon running and without,
//! beside `/bin/true` and an empty Rust program, so the figures separate starting a process,
//! starting this binary, and the hook's own work.
//!
//! Two events of an ordinary `Read` call, both let through without a question: `PreToolUse`,
//! which the hook reads and leaves at once, and `PostToolUse`, which the hook runs after every
//! tool call (`beckon setup claude-code` hooks it for every tool) and which, with Beckon running,
//! clears the session's "waiting" notice and withdraws any question the call settled.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::{Value, json};

use crate::Failure;
use crate::serve_memory::Server;
use crate::stats::Summary;

/// What was run, and how long each run took from spawn to exit.
#[derive(Debug, Clone)]
pub struct HookCost {
    /// Each row: a name and its runs.
    pub rows: Vec<(String, Summary)>,
}

impl HookCost {
    /// As JSON.
    pub fn to_json(&self) -> Value {
        Value::Object(self.rows.iter().map(|(name, summary)| (name.clone(), summary.to_json())).collect())
    }
}

/// An event of Claude Code about a `Read` of a file, as Claude Code sends its hooks.
fn read_event(hook_event_name: &str, project: &Path) -> Value {
    let file = project.join("src/main.rs");
    let mut event = json!({
        "session_id": "5d1f6a0e-8f7b-4c52-9a57-0c9a3f2b1e11",
        "transcript_path": project.join(".claude/transcript.jsonl"),
        "cwd": project,
        "permission_mode": "default",
        "hook_event_name": hook_event_name,
        "tool_name": "Read",
        "tool_input": {"file_path": file},
        "tool_use_id": "toolu_01BenchRead",
    });
    if hook_event_name == "PostToolUse" {
        event["tool_response"] = json!({"type": "text", "file": {"filePath": file, "content": "fn main() {}\n",
                                        "numLines": 1, "startLine": 1, "totalLines": 1}});
    }
    event
}

/// The empty Rust program beside this one (`fn main() {}`, the bench's `beckon-bench-empty`),
/// built with the same profile when missing (needs to run under cargo).
pub fn empty_binary() -> Result<PathBuf, Failure> {
    let exe = std::env::current_exe()?;
    let dir = exe.parent().ok_or("the bench has no folder")?;
    let binary = dir.join(format!("beckon-bench-empty{}", std::env::consts::EXE_SUFFIX));
    if binary.exists() {
        return Ok(binary);
    }
    let cargo = std::env::var("CARGO").map_err(|_| {
        format!("{} is missing: build it with `cargo build --release -p beckon-bench`", binary.display())
    })?;
    let mut build = Command::new(cargo);
    build.args(["build", "-p", "beckon-bench", "--bin", "beckon-bench-empty"]);
    if dir.file_name().is_some_and(|name| name == "release") {
        build.arg("--release");
    }
    if !build.status()?.success() || !binary.exists() {
        return Err("cannot build the empty program".into());
    }
    Ok(binary)
}

/// Runs `command` `rounds` times with `stdin` written to it, each from spawn to exit.
fn timed(mut command: Command, stdin: &[u8], rounds: usize) -> Result<Summary, Failure> {
    command.stdin(Stdio::piped()).stdout(Stdio::null()).stderr(Stdio::null());
    let mut samples = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let started = Instant::now();
        let mut child = command.spawn()?;
        if let Some(mut pipe) = child.stdin.take() {
            // A program that does not read its input (true) may be gone already.
            let _ = pipe.write_all(stdin);
        }
        let status = child.wait()?;
        samples.push(started.elapsed());
        if !status.success() {
            return Err(format!("{command:?} failed: {status}").into());
        }
    }
    Summary::of(samples).ok_or_else(|| "no runs".into())
}

/// `beckon hook claude-code` on `data_dir`, with nothing of the person's environment.
fn hook(beckon: &Path, data_dir: &Path) -> Command {
    let mut command = Command::new(beckon);
    command.args(["hook", "claude-code"]).env_clear().env("BECKON_DATA_DIR", data_dir).env("BECKON_LOG", "warn");
    command
}

/// Measures the hook `rounds` times in each case, with `scratch` for its data folders.
pub async fn measure(beckon: &Path, scratch: &Path, rounds: usize) -> Result<HookCost, Failure> {
    let empty = empty_binary()?;
    let project = scratch.join("project");
    std::fs::create_dir_all(&project)?;
    let pre = serde_json::to_vec(&read_event("PreToolUse", &project))?;
    let post = serde_json::to_vec(&read_event("PostToolUse", &project))?;
    let stopped = scratch.join("no-beckon");
    std::fs::create_dir_all(&stopped)?;
    let running = scratch.join("beckon");
    std::fs::create_dir_all(&running)?;

    let mut rows = Vec::new();
    let mut row = |name: &str, summary: Summary| rows.push((name.to_owned(), summary));
    row("/bin/true", timed(Command::new("/bin/true"), &pre, rounds)?);
    row("an empty Rust program", timed(Command::new(&empty), &pre, rounds)?);
    let mut version = Command::new(beckon);
    version.arg("--version");
    row("beckon --version", timed(version, &[], rounds)?);
    row("hook, PreToolUse Read, Beckon not running", timed(hook(beckon, &stopped), &pre, rounds)?);
    row("hook, PostToolUse Read, Beckon not running", timed(hook(beckon, &stopped), &post, rounds)?);
    let (server, _client) = Server::start(beckon, &running).await?;
    let (with_pre, with_post) = tokio::task::spawn_blocking({
        let (beckon, running) = (beckon.to_path_buf(), running.clone());
        move || -> Result<(Summary, Summary), Failure> {
            Ok((timed(hook(&beckon, &running), &pre, rounds)?, timed(hook(&beckon, &running), &post, rounds)?))
        }
    })
    .await??;
    drop(server);
    row("hook, PreToolUse Read, Beckon running", with_pre);
    row("hook, PostToolUse Read, Beckon running", with_post);
    Ok(HookCost { rows })
}
