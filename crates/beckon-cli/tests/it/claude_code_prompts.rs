//! The real Claude Code (pinned in tests/claude-code), interactive in tmux in the default
//! permission mode, connected with `beckon setup claude-code`, and a scripted model on
//! loopback: its permission prompts and its own AskUserQuestion reach Beckon through the hook,
//! the person's answer in Beckon decides, an answer in the terminal first withdraws Beckon's
//! question, and with no Beckon running the terminal dialog comes at once. An MCP server's form
//! (a Python server on the official SDK) is answered in Beckon and its content reaches the
//! server. Claude Code waiting at its prompt shows a notice naming the project, which goes when
//! the person goes on.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use beckon_gateway::Discovery;
use beckon_testkit::scripted_model::{Request, Script, ScriptedModel, Turn};
use serde_json::{Value, json};

use crate::support::questions;
use crate::support::{python, served};

const API_KEY: &str = "sk-ant-test-0123456789abcdefghij";
/// How long after a turn Claude Code tells its Notification hooks that it waits for input.
const IDLE_NOTICE_MS: u64 = 1_500;

fn claude() -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/claude-code/node_modules/.bin/claude");
    assert!(path.exists(), "no Claude Code at {}: run `npm ci` in tests/claude-code", path.display());
    path
}

/// A model that calls `tool` with `input` once, then says "Done." after the result.
fn calling(tool: &str, input: Value) -> Script {
    let tool = tool.to_owned();
    Arc::new(move |request: &Request| {
        if request.tool_names().is_empty() {
            return Turn::Text("Files".into());
        }
        if request.tool_results().is_empty() {
            Turn::call("toolu_01", &tool, input.clone())
        } else {
            Turn::Text("Done.".into())
        }
    })
}

/// Claude Code in tmux on its own tmux server, with Beckon (or not) and the scripted model.
struct Rig {
    home: tempfile::TempDir,
    project: PathBuf,
    data: PathBuf,
    serve: Option<tokio::process::Child>,
    gateway: Option<Discovery>,
    http: reqwest::Client,
    model: ScriptedModel,
    socket: String,
    mode: &'static str,
}

static RIGS: AtomicUsize = AtomicUsize::new(0);

impl Rig {
    async fn start(script: Script, with_beckon: bool) -> Rig {
        Rig::start_in("default", script, with_beckon).await
    }

    /// Claude Code in the permission mode `mode`.
    async fn start_in(mode: &'static str, script: Script, with_beckon: bool) -> Rig {
        Rig::launch(mode, json!({}), script, with_beckon).await
    }

    /// Claude Code in the permission mode `mode`, with the project's MCP `servers`.
    async fn launch(mode: &'static str, servers: Value, script: Script, with_beckon: bool) -> Rig {
        let home = tempfile::tempdir().unwrap();
        let project = home.path().join("shop");
        std::fs::create_dir_all(&project).unwrap();
        let data = home.path().join("beckon-data");
        let key_tail = &API_KEY[API_KEY.len() - 20..];
        // Claude Code says it waits for input this long after a turn ends (60 s by default).
        let mut state = json!({"hasCompletedOnboarding": true, "messageIdleNotifThresholdMs": IDLE_NOTICE_MS,
            "customApiKeyResponses": {"approved": [key_tail], "rejected": []}, "projects": {}});
        state["projects"][project.display().to_string()] =
            json!({"hasTrustDialogAccepted": true, "mcpServers": servers});
        std::fs::write(home.path().join(".claude.json"), state.to_string()).unwrap();
        let setup = Command::new(env!("CARGO_BIN_EXE_beckon"))
            .args(["setup", "claude-code"])
            .current_dir(&project)
            .env("HOME", home.path())
            .env_remove("CLAUDE_CONFIG_DIR")
            .output()
            .unwrap();
        assert!(setup.status.success(), "{}", String::from_utf8_lossy(&setup.stderr));
        let (serve, gateway) = if with_beckon {
            let (serve, gateway) = served::serve_approving(&data).await;
            (Some(serve), Some(gateway))
        } else {
            (None, None)
        };
        let model = ScriptedModel::start(script).await;
        let socket = format!("beckon-test-{}-{}", std::process::id(), RIGS.fetch_add(1, Ordering::Relaxed));
        let rig = Rig { home, project, data, serve, gateway, http: reqwest::Client::new(), model, socket, mode };
        rig.open_claude_code();
        rig
    }

    fn tmux(&self) -> Command {
        let mut command = Command::new("tmux");
        command.arg("-L").arg(&self.socket).stdin(Stdio::null());
        command
    }

    fn open_claude_code(&self) {
        let env = [
            ("HOME", self.home.path().display().to_string()),
            ("PATH", std::env::var("PATH").unwrap_or_default()),
            ("TERM", "xterm-256color".into()),
            ("BECKON_DATA_DIR", self.data.display().to_string()),
            ("ANTHROPIC_BASE_URL", self.model.url.clone()),
            ("ANTHROPIC_API_KEY", API_KEY.into()),
            ("DISABLE_TELEMETRY", "1".into()),
            ("DISABLE_AUTOUPDATER", "1".into()),
            ("DISABLE_ERROR_REPORTING", "1".into()),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
        ];
        let mut command = self.tmux();
        command.args(["new-session", "-d", "-s", "cc", "-x", "200", "-y", "50", "-c"]).arg(&self.project);
        command.args(["env", "-i"]);
        for (name, value) in env {
            command.arg(format!("{name}={value}"));
        }
        command.arg(claude()).args(["--permission-mode", self.mode]);
        let started = command.status().unwrap();
        assert!(started.success(), "tmux did not start");
        self.wait_for_screen("the prompt", Duration::from_secs(60), |screen| {
            // The default mode's footer, or another mode's ("accept edits on (shift+tab to cycle)").
            screen.contains("for shortcuts") || screen.contains("shift+tab to cycle")
        });
    }

    fn screen(&self) -> String {
        let output = self.tmux().args(["capture-pane", "-p", "-t", "cc"]).output().unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    fn keys(&self, keys: &[&str]) {
        let status = self.tmux().args(["send-keys", "-t", "cc"]).args(keys).status().unwrap();
        assert!(status.success());
    }

    fn type_prompt(&self, text: &str) {
        self.keys(&["-l", text]);
        std::thread::sleep(Duration::from_millis(300));
        self.keys(&["Enter"]);
    }

    fn wait_for_screen(&self, what: &str, limit: Duration, done: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + limit;
        loop {
            let screen = self.screen();
            if done(&screen) {
                return screen;
            }
            assert!(Instant::now() < deadline, "no {what} on Claude Code's screen within {limit:?}:\n{screen}");
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn gateway(&self) -> &Discovery {
        self.gateway.as_ref().expect("this rig runs Beckon")
    }

    async fn pending(&self) -> Value {
        let url = format!("{}/v1/questions?status=pending", self.gateway().url);
        questions::first_listed(&self.http, &url, &self.gateway().token, Duration::from_secs(90), |_| {
            format!("nothing reached Beckon; Claude Code shows:\n{}", self.screen())
        })
        .await
    }

    async fn question(&self, id: &str) -> Value {
        let url = format!("{}/v1/questions/{id}", self.gateway().url);
        self.http.get(url).bearer_auth(&self.gateway().token).send().await.unwrap().json().await.unwrap()
    }

    async fn answer(&self, id: &str, body: Value) -> Value {
        let url = format!("{}/v1/questions/{id}/answer", self.gateway().url);
        let response = self.http.post(url).bearer_auth(&self.gateway().token).json(&body).send().await.unwrap();
        assert!(response.status().is_success(), "{}", response.status());
        response.json().await.unwrap()
    }

    /// The notices Beckon shows now.
    async fn notices(&self) -> Vec<Value> {
        let url = format!("{}/v1/notices", self.gateway().url);
        let listed: Value =
            self.http.get(url).bearer_auth(&self.gateway().token).send().await.unwrap().json().await.unwrap();
        listed["notices"].as_array().cloned().unwrap()
    }

    /// The text of the tool_result the model got for the call, once it got one.
    async fn tool_result(&self) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some((_, text)) =
                self.model.requests().iter().flat_map(Request::tool_results).find(|(id, _)| id == "toolu_01")
            {
                return text;
            }
            assert!(Instant::now() < deadline, "the model got no tool_result; Claude Code shows:\n{}", self.screen());
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

impl Drop for Rig {
    fn drop(&mut self) {
        let _ = self.tmux().arg("kill-server").status();
        if let Some(serve) = &mut self.serve {
            let _ = serve.start_kill();
        }
    }
}

fn write_file(name: &str) -> Script {
    calling("Bash", json!({"command": format!("echo hi > {name}"), "description": format!("Write {name}")}))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_permission_prompt_allowed_in_beckon_runs_the_command() {
    let rig = Rig::start(write_file("f.txt"), true).await;
    rig.type_prompt("Write the file please");
    let approval = rig.pending().await;
    let id = approval["request_id"].as_str().unwrap();
    assert_eq!(approval["agent"], "claude-code");
    assert_eq!(approval["input"]["approval"]["tool_name"], "Bash");
    assert_eq!(approval["input"]["approval"]["input"]["command"], "echo hi > f.txt");
    assert_eq!(approval["input"]["approval"]["project"], rig.project.display().to_string());
    assert!(approval["input"]["questions"][0]["options"][0]["preview"].as_str().unwrap().contains("echo hi > f.txt"));
    let answered = rig.answer(id, json!({"answer": "Allow"})).await;
    assert_eq!(answered["status"], "answered");
    let file = rig.project.join("f.txt");
    // The shell creates the file before it writes to it: wait for what it writes.
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::fs::read_to_string(&file).ok().as_deref() != Some("hi\n") {
        assert!(Instant::now() < deadline, "f.txt was not written; Claude Code shows:\n{}", rig.screen());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    rig.wait_for_screen("word of the hook's decision", Duration::from_secs(30), |screen| {
        screen.contains("PermissionRequest hook")
    });
}

#[tokio::test(flavor = "multi_thread")]
async fn a_permission_prompt_denied_in_beckon_tells_the_model_why() {
    let rig = Rig::start(write_file("g.txt"), true).await;
    rig.type_prompt("Write the file please");
    let approval = rig.pending().await;
    let id = approval["request_id"].as_str().unwrap();
    rig.answer(id, json!({"answers": [{"selected": ["Deny"], "comment": "Write it under /tmp instead"}]})).await;
    let result = rig.tool_result().await;
    assert!(result.contains("Write it under /tmp instead"), "{result}");
    assert!(!rig.project.join("g.txt").exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn an_answer_in_the_terminal_first_withdraws_the_question_from_beckon() {
    let rig = Rig::start(write_file("h.txt"), true).await;
    rig.type_prompt("Write the file please");
    let approval = rig.pending().await;
    let id = approval["request_id"].as_str().unwrap().to_owned();
    rig.wait_for_screen("permission dialog", Duration::from_secs(30), |screen| {
        screen.contains("Do you want to proceed?")
    });
    std::thread::sleep(Duration::from_secs(2));
    rig.keys(&["Enter"]);
    let deadline = Instant::now() + Duration::from_secs(30);
    let question = loop {
        let question = rig.question(&id).await;
        if question["status"] != "pending" {
            break question;
        }
        assert!(Instant::now() < deadline, "the approval stayed pending; Claude Code shows:\n{}", rig.screen());
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(question["status"], "cancelled");
    assert_eq!(question["outcome"]["reason"], "answered in the terminal");
    let file = rig.project.join("h.txt");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !file.exists() {
        assert!(Instant::now() < deadline, "h.txt was not written; Claude Code shows:\n{}", rig.screen());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn with_beckon_not_running_the_terminal_dialog_comes_at_once() {
    let rig = Rig::start(write_file("i.txt"), false).await;
    // The hook itself, as Claude Code runs it: nothing printed, exit 0, well within a second.
    let event = json!({"session_id": "s1", "cwd": rig.project, "hook_event_name": "PermissionRequest",
        "tool_name": "Bash", "tool_input": {"command": "ls"}});
    let started = Instant::now();
    let mut hook = Command::new(env!("CARGO_BIN_EXE_beckon"))
        .args(["hook", "claude-code"])
        .env("BECKON_DATA_DIR", &rig.data)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    hook.stdin.take().unwrap().write_all(event.to_string().as_bytes()).unwrap();
    let output = hook.wait_with_output().unwrap();
    let took = started.elapsed();
    assert!(output.status.success());
    assert!(output.stdout.is_empty(), "{}", String::from_utf8_lossy(&output.stdout));
    assert!(took < Duration::from_secs(1), "the hook took {took:?} with no Beckon running");

    rig.type_prompt("Write the file please");
    let asked = Instant::now();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !rig.model.requests().iter().any(|r| !r.tool_names().is_empty()) {
        assert!(Instant::now() < deadline, "the model was not asked");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    rig.wait_for_screen("permission dialog", Duration::from_secs(30), |screen| {
        screen.contains("Do you want to proceed?")
    });
    let shown = asked.elapsed();
    assert!(shown < Duration::from_secs(10), "the dialog took {shown:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn claude_codes_own_question_answered_in_beckon_reaches_the_model() {
    own_question_answered_in_beckon("default").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn in_another_permission_mode_its_own_question_still_reaches_beckon_once() {
    own_question_answered_in_beckon("acceptEdits").await;
}

async fn own_question_answered_in_beckon(mode: &'static str) {
    let input = json!({"questions": [{"question": "Which color should the banner be?", "header": "Color",
        "multiSelect": false, "options": [{"label": "Red", "description": "Warm"}, {"label": "Blue", "description": "Calm"}]}]});
    let rig = Rig::start_in(mode, calling("AskUserQuestion", input), true).await;
    rig.type_prompt("Pick a banner color with me");
    let question = rig.pending().await;
    let id = question["request_id"].as_str().unwrap();
    assert!(question["input"].get("approval").is_none(), "{question}");
    assert_eq!(question["input"]["questions"][0]["question"], "Which color should the banner be?");
    rig.answer(id, json!({"answer": "Blue"})).await;
    let result = rig.tool_result().await;
    assert!(result.contains("Which color should the banner be?") && result.contains("Blue"), "{result}");
    // One question only: the PreToolUse and PermissionRequest hooks did not both ask.
    let url = format!("{}/v1/questions?limit=10", rig.gateway().url);
    let all: Value = rig.http.get(url).bearer_auth(&rig.gateway().token).send().await.unwrap().json().await.unwrap();
    assert_eq!(all["questions"].as_array().unwrap().len(), 1, "{all}");
}

#[tokio::test(flavor = "multi_thread")]
async fn its_own_question_declined_in_beckon_reaches_the_model_as_unanswered() {
    let input = json!({"questions": [{"question": "Which color should the banner be?", "header": "Color",
        "multiSelect": false, "options": [{"label": "Red", "description": "Warm"}, {"label": "Blue", "description": "Calm"}]}]});
    let rig = Rig::start_in("default", calling("AskUserQuestion", input), true).await;
    rig.type_prompt("Pick a banner color with me");
    let question = rig.pending().await;
    let id = question["request_id"].as_str().unwrap();
    let url = format!("{}/v1/questions/{id}/decline", rig.gateway().url);
    let declined = rig
        .http
        .post(url)
        .bearer_auth(&rig.gateway().token)
        .json(&json!({"reason": "not today"}))
        .send()
        .await
        .unwrap();
    assert!(declined.status().is_success(), "{}", declined.status());
    let result = rig.tool_result().await;
    assert!(
        result.contains("dismissed this question in Beckon without answering") && result.contains("not today"),
        "the model reads that the person left it unanswered, and why: {result}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn claude_code_waiting_at_its_prompt_is_a_notice_until_the_person_goes_on() {
    // "Say hello" ends a turn at once; "Write the file please" then asks to run a command.
    let script: Script = Arc::new(|request: &Request| {
        if request.tool_names().is_empty() {
            return Turn::Text("Files".into());
        }
        if !request.body.to_string().contains("Write the file please") {
            return Turn::Text("Hello.".into());
        }
        if request.tool_results().is_empty() {
            let input = json!({"command": "echo hi > h.txt", "description": "Write h.txt"});
            Turn::call("toolu_01", "Bash", input)
        } else {
            Turn::Text("Done.".into())
        }
    });
    let rig = Rig::start(script, true).await;
    assert!(rig.notices().await.is_empty(), "nothing waits before the first turn");
    rig.type_prompt("Say hello");
    let deadline = Instant::now() + Duration::from_secs(60);
    let notice = loop {
        if let Some(notice) = rig.notices().await.first() {
            break notice.clone();
        }
        assert!(Instant::now() < deadline, "no notice reached Beckon; Claude Code shows:\n{}", rig.screen());
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(notice["agent"], "claude-code");
    assert_eq!(notice["message"], "Claude is waiting for your input");
    assert_eq!(notice["project"], rig.project.display().to_string());
    let key = notice["key"].as_str().unwrap();
    assert!(key.starts_with("claude-code:"), "{key}");

    // The person goes on in the terminal: the notice goes, and while Claude Code then waits at
    // a permission dialog (which Beckon holds as an approval) it does not come back.
    rig.type_prompt("Write the file please");
    let approval = rig.pending().await;
    let session = approval["input"]["approval"]["session"].as_str().unwrap();
    assert_eq!(key, format!("claude-code:{session}"), "the notice and the approval name the same session");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !rig.notices().await.is_empty() {
        assert!(Instant::now() < deadline, "the notice stayed after the person went on: {:?}", rig.notices().await);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_millis(IDLE_NOTICE_MS * 2)).await;
    assert!(rig.notices().await.is_empty(), "a permission dialog is not idle: {:?}", rig.notices().await);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_mcp_servers_form_answered_in_beckon_reaches_the_server() {
    let python = python::venv_python();
    let server = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/booking_server.py");
    let servers = json!({"booking": {"type": "stdio", "command": python, "args": [server], "env": {}}});
    let rig = Rig::launch("default", servers, calling("mcp__booking__book_table", json!({})), true).await;
    rig.type_prompt("Book us a table");
    // Calling the server's tool needs permission first: allowed in Beckon.
    let approval = rig.pending().await;
    assert_eq!(approval["input"]["approval"]["tool_name"], "mcp__booking__book_table", "{approval}");
    rig.answer(approval["request_id"].as_str().unwrap(), json!({"answer": "Allow"})).await;
    // Then the server asks for its form: one free-form question per field, in order.
    let deadline = Instant::now() + Duration::from_secs(60);
    let form = loop {
        let pending = rig.pending().await;
        if pending["request_id"] != approval["request_id"] {
            break pending;
        }
        assert!(Instant::now() < deadline, "the form did not reach Beckon; Claude Code shows:\n{}", rig.screen());
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let items = form["input"]["questions"].as_array().unwrap();
    assert_eq!(items.len(), 2, "{form}");
    assert!(items[0]["question"].as_str().unwrap().starts_with("Who is the table for?"), "{form}");
    assert_eq!(items[1]["schema"]["type"], "integer", "{form}");
    assert_eq!(form["input"]["metadata"]["mcp_server"], "booking");
    rig.answer(form["request_id"].as_str().unwrap(), json!({"answers": ["Ada", "4"]})).await;
    let result = rig.tool_result().await;
    assert!(result.contains("Booked a table for 4 under Ada"), "{result}");
}
