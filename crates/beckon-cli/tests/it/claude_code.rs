//! The real Claude Code (the npm package pinned in tests/claude-code) against Beckon, in print
//! mode, with a scripted Anthropic model on loopback and Beckon's MCP server configured exactly
//! as the README says (its `claude mcp add` line, or its JSON for other clients): the model is offered Beckon's tools in its first request, its question
//! (previews, metadata, two questions, one multi-select) reaches the person, and the person's
//! answer comes back to the model as the result of that exact tool call, in Claude Code's shape.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use beckon_gateway::Discovery;
use beckon_testkit::scripted_model::{Request, Script, ScriptedModel, Turn, leading_json};
use serde_json::{Value, json};

use crate::docs::book;
use crate::support::questions;
use crate::support::served;

const ASK: &str = "mcp__beckon__ask_user_question";
const GET_ANSWER: &str = "mcp__beckon__get_answer";

/// The Claude Code binary `npm ci` put in tests/claude-code.
fn claude() -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/claude-code/node_modules/.bin/claude");
    assert!(
        path.exists(),
        "no Claude Code at {}: run `npm ci` in tests/claude-code (scripts/test does)",
        path.display()
    );
    path
}

/// How Claude Code is told about Beckon: each as the README gives it, `beckon` found on PATH.
#[derive(Debug, Clone, Copy)]
enum Setup {
    /// `claude mcp add --scope user beckon -- beckon mcp`, run once in the test's home.
    McpAdd,
    /// The JSON for other MCP clients, passed with `--mcp-config` and `--strict-mcp-config`.
    McpConfig,
}

/// `beckon serve` on a data folder, with a home of its own for Claude Code, and the fake model.
struct Rig {
    home: tempfile::TempDir,
    data: PathBuf,
    _serve: tokio::process::Child,
    gateway: Discovery,
    http: reqwest::Client,
    model: ScriptedModel,
}

impl Rig {
    async fn start(script: Script) -> Rig {
        let home = tempfile::tempdir().unwrap();
        let data = home.path().join("beckon-data");
        // The test answers approvals over HTTP, as a person's window would.
        let (serve, gateway) = served::serve_approving(&data).await;
        let model = ScriptedModel::start(script).await;
        Rig { home, data, _serve: serve, gateway, http: reqwest::Client::new(), model }
    }

    /// Claude Code in the test's home, offline, with the scripted model and `beckon` on PATH.
    fn command(&self) -> tokio::process::Command {
        let bin_dir = Path::new(env!("CARGO_BIN_EXE_beckon")).parent().unwrap().to_owned();
        let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
        let mut command = tokio::process::Command::new(claude());
        command
            .current_dir(self.home.path())
            .env_clear()
            .env("PATH", path)
            .env("HOME", self.home.path())
            .env("BECKON_DATA_DIR", &self.data)
            .env("ANTHROPIC_BASE_URL", &self.model.url)
            .env("ANTHROPIC_API_KEY", "sk-ant-test-0123456789abcdefghij")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("DISABLE_ERROR_REPORTING", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        command
    }

    /// Tells Claude Code about Beckon as `setup` says, runs `claude -p` to its end and returns
    /// its JSON output.
    async fn claude(&self, setup: Setup, prompt: &str) -> Value {
        let mut command = self.command();
        command.args(["-p", prompt]);
        match setup {
            Setup::McpAdd => {
                // The book's line, word by word: the same program (the pinned Claude Code) with
                // the same arguments.
                let line = book::block("docs/src/agents/mcp.md", "claude mcp add --scope user beckon -- beckon mcp");
                let words = book::words(&line.text());
                assert_eq!(words[0], "claude", "{}", line.at);
                let added = self.command().args(&words[1..]).output();
                let added = tokio::time::timeout(Duration::from_secs(60), added).await.unwrap().unwrap();
                assert!(added.status.success(), "claude mcp add: {}", String::from_utf8_lossy(&added.stderr));
            }
            Setup::McpConfig => {
                let config = self.home.path().join("mcp.json");
                let servers = json!({"mcpServers": {"beckon": {"command": "beckon", "args": ["mcp"]}}});
                std::fs::write(&config, servers.to_string()).unwrap();
                command.arg("--mcp-config").arg(&config).arg("--strict-mcp-config");
            }
        }
        command.args(["--allowedTools", "mcp__beckon", "--output-format", "json"]);
        Self::printed(command).await
    }

    /// Runs `claude -p` to its end and returns its JSON output.
    async fn printed(mut command: tokio::process::Command) -> Value {
        let output = tokio::time::timeout(Duration::from_secs(240), command.output())
            .await
            .expect("claude -p did not finish within 240 s")
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "claude -p failed ({}):\n{stdout}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_str(stdout.trim()).unwrap_or_else(|err| panic!("claude -p printed no JSON ({err}): {stdout}"))
    }

    /// Starts Beckon and a model that runs `echo hi > <file>` in Bash, and `claude -p` in the
    /// default permission mode with `--permission-prompt-tool mcp__beckon__approve`.
    async fn approving(file: &str) -> (Arc<Rig>, tokio::task::JoinHandle<Value>) {
        let command = format!("echo hi > {file}");
        let script: Script = Arc::new(move |request: &Request| {
            if request.tool_names().is_empty() {
                Turn::Text("A file".into())
            } else if request.tool_results().is_empty() {
                Turn::call("toolu_bash_1", "Bash", json!({"command": command}))
            } else {
                Turn::Text("Done.".into())
            }
        });
        let rig = Arc::new(Rig::start(script).await);
        let config = rig.home.path().join("mcp.json");
        let servers = json!({"mcpServers": {"beckon": {"command": "beckon", "args": ["mcp"]}}});
        std::fs::write(&config, servers.to_string()).unwrap();
        let mut command = rig.command();
        command.args(["-p", "Write the file", "--permission-mode", "default", "--strict-mcp-config"]);
        command.arg("--mcp-config").arg(&config);
        command.args(["--permission-prompt-tool", "mcp__beckon__approve", "--output-format", "json"]);
        let claude = tokio::spawn(Self::printed(command));
        (rig, claude)
    }

    /// Starts Beckon and the scripted model asking with `input` (waiting `wait_seconds`), and
    /// `claude -p` set up as `setup` says; the rig and the running Claude Code.
    async fn asking(wait_seconds: u64, setup: Setup) -> (Arc<Rig>, tokio::task::JoinHandle<Value>) {
        let mut input = deploy_questions();
        input["wait_seconds"] = json!(wait_seconds);
        let rig = Arc::new(Rig::start(asking_model(input)).await);
        let claude = {
            let rig = rig.clone();
            tokio::spawn(async move { rig.claude(setup, "Plan the release announcement; ask me what you need.").await })
        };
        (rig, claude)
    }

    async fn get(&self, path: &str) -> Value {
        let response = self.http.get(format!("{}{path}", self.gateway.url)).bearer_auth(&self.gateway.token);
        response.send().await.unwrap().json().await.unwrap()
    }

    /// Waits for a pending question and returns it.
    async fn pending_question(&self) -> Value {
        let url = format!("{}/v1/questions?status=pending", self.gateway.url);
        questions::first_listed(&self.http, &url, &self.gateway.token, Duration::from_secs(120), |_| {
            "no question reached Beckon".to_owned()
        })
        .await
    }

    async fn answer(&self, id: &str, body: Value) -> Value {
        let url = format!("{}/v1/questions/{id}/answer", self.gateway.url);
        let response = self.http.post(url).bearer_auth(&self.gateway.token).json(&body).send().await.unwrap();
        assert!(response.status().is_success(), "{}", response.status());
        response.json().await.unwrap()
    }
}

/// What the model asks: previews, metadata, two questions, the second multi-select.
fn deploy_questions() -> Value {
    json!({
        "questions": [
            {
                "question": "Which layout should the release page use?",
                "header": "Layout",
                "options": [
                    {"label": "Timeline", "description": "Entries by date", "preview": "## 2.3\n- fixed the tray\n- faster start"},
                    {"label": "Table", "description": "One row per change", "preview": "| Change | Area |\n|---|---|\n| Tray | UI |"}
                ],
                "multiSelect": false
            },
            {
                "question": "Which channels get the announcement?",
                "header": "Channels",
                "options": [
                    {"label": "Blog", "description": "The project blog"},
                    {"label": "Mail", "description": "The mailing list"},
                    {"label": "Chat", "description": "The community chat"}
                ],
                "multiSelect": true
            }
        ],
        "metadata": {"source": "release"}
    })
}

/// The model: ask with `input`; after a pending result, keep waiting with get_answer; after an
/// answer, say what it got. Requests that offer no tools (Claude Code's own side requests) get
/// a word.
fn asking_model(input: Value) -> Script {
    Arc::new(move |request: &Request| {
        if request.tool_names().is_empty() {
            return Turn::Text("Release planning".into());
        }
        match request.tool_results().last().map(|(id, text)| (id.clone(), leading_json(text))) {
            None => Turn::call("toolu_ask_1", ASK, input.clone()),
            Some((_, Some(result))) if result["outcome"] == "pending" => Turn::call(
                &format!("toolu_wait_{}", request.body["messages"].as_array().map_or(0, Vec::len)),
                GET_ANSWER,
                json!({"request_id": result["request_id"], "wait_seconds": 60}),
            ),
            Some(_) => Turn::Text("Thanks, I have the answer.".into()),
        }
    })
}

/// The tool_result Claude Code sent back for `tool_use_id`, parsed.
fn result_for(model: &ScriptedModel, tool_use_id: &str) -> Value {
    model
        .requests()
        .iter()
        .flat_map(Request::tool_results)
        .find(|(id, _)| id == tool_use_id)
        .and_then(|(_, text)| leading_json(&text))
        .unwrap_or_else(|| panic!("no JSON tool_result for {tool_use_id}; requests: {:#?}", model.requests()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_asks_through_beckon_and_gets_the_answer_as_its_tool_result() {
    let (rig, asking) = Rig::asking(100, Setup::McpAdd).await;

    let question = rig.pending_question().await;
    // 1. With the README's `claude mcp add` line alone, the first request offers Beckon's tools.
    let first = rig.model.requests().into_iter().find(|r| !r.tool_names().is_empty()).expect("a request with tools");
    let offered = first.tool_names();
    assert!(offered.iter().any(|name| name == ASK), "{ASK} is not in the first request's tools: {offered:?}");
    // 2. The question reached Beckon as asked, previews and metadata included.
    let asked = deploy_questions();
    assert_eq!(question["input"]["questions"], asked["questions"]);
    assert_eq!(question["input"]["metadata"], asked["metadata"]);
    assert_eq!(question["agent"], "claude-code", "the name its hooks give");
    let id = question["request_id"].as_str().unwrap();
    rig.answer(
        id,
        json!({"answers": {
            "Which layout should the release page use?": {"selected": ["Table"], "comment": "easier to scan"},
            "Which channels get the announcement?": "Blog, Chat"
        }}),
    )
    .await;

    let printed = asking.await.unwrap();
    assert_eq!(printed["is_error"], false, "{printed}");
    let result = result_for(&rig.model, "toolu_ask_1");
    assert_eq!(result["outcome"], "answered", "{result}");
    assert_eq!(result["questions"], asked["questions"]);
    assert_eq!(
        result["answers"],
        json!({
            "Which layout should the release page use?": "Table",
            "Which channels get the announcement?": "Blog, Chat"
        })
    );
    assert_eq!(
        result["annotations"],
        json!({"Which layout should the release page use?": {
            "notes": "easier to scan",
            "preview": "| Change | Area |\n|---|---|\n| Tray | UI |"
        }})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_after_the_wait_reaches_claude_code_through_get_answer_with_no_second_question() {
    let (rig, asking) = Rig::asking(1, Setup::McpConfig).await;
    let question = rig.pending_question().await;
    let id = question["request_id"].as_str().unwrap().to_owned();
    // The person answers once the model has been told to keep waiting.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    while !rig.model.requests().iter().flat_map(Request::tool_results).any(|(id, _)| id == "toolu_ask_1") {
        assert!(tokio::time::Instant::now() < deadline, "the pending result never reached the model");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(result_for(&rig.model, "toolu_ask_1")["outcome"], "pending");
    assert_eq!(result_for(&rig.model, "toolu_ask_1")["request_id"], json!(id));
    rig.answer(
        &id,
        json!({"answers": {"Which layout should the release page use?": "Timeline",
        "Which channels get the announcement?": "Mail"}}),
    )
    .await;

    let printed = asking.await.unwrap();
    assert_eq!(printed["is_error"], false, "{printed}");
    let waits: Vec<(String, Value)> = rig
        .model
        .requests()
        .iter()
        .flat_map(Request::tool_results)
        .filter(|(tool_use_id, _)| tool_use_id.starts_with("toolu_wait_"))
        .filter_map(|(tool_use_id, text)| leading_json(&text).map(|value| (tool_use_id, value)))
        .collect();
    let (_, last) = waits.last().expect("get_answer's result reached the model");
    assert_eq!(last["outcome"], "answered", "{last}");
    assert_eq!(
        last["answers"],
        json!({"Which layout should the release page use?": "Timeline", "Which channels get the announcement?": "Mail"})
    );
    let all = rig.get("/v1/questions?status=answered").await;
    assert_eq!(all["questions"].as_array().map(Vec::len), Some(1), "one question, never asked twice: {all}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_p_asks_beckon_for_permission_and_runs_what_the_person_allows() {
    let (rig, claude) = Rig::approving("allowed.txt").await;
    let approval = rig.pending_question().await;
    assert_eq!(approval["input"]["approval"]["tool_name"], "Bash");
    assert_eq!(approval["input"]["approval"]["input"]["command"], "echo hi > allowed.txt");
    let id = approval["request_id"].as_str().unwrap();
    rig.answer(id, json!({"answer": "Allow"})).await;
    let printed = claude.await.unwrap();
    assert_eq!(printed["is_error"], false, "{printed}");
    assert_eq!(std::fs::read_to_string(rig.home.path().join("allowed.txt")).unwrap(), "hi\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_p_is_told_why_the_person_denied_a_tool_call() {
    let (rig, claude) = Rig::approving("denied.txt").await;
    let approval = rig.pending_question().await;
    let id = approval["request_id"].as_str().unwrap();
    rig.answer(id, json!({"answers": [{"selected": ["Deny"], "comment": "Not in my home folder"}]})).await;
    let printed = claude.await.unwrap();
    assert_eq!(printed["is_error"], false, "{printed}");
    let result = rig
        .model
        .requests()
        .iter()
        .flat_map(Request::tool_results)
        .find(|(tool_use_id, _)| tool_use_id == "toolu_bash_1")
        .map(|(_, text)| text)
        .expect("the denial reached the model");
    assert!(result.contains("Not in my home folder"), "{result}");
    assert!(!rig.home.path().join("denied.txt").exists());
}
