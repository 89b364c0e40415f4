//! The real OpenCode (pinned in tests/agents), as `opencode serve` on loopback driven over its
//! HTTP API the way its terminal and apps drive it, connected with `beckon setup opencode`, and
//! a scripted Chat Completions model: Beckon's MCP tool asks the person and the answer reaches
//! the model; a permission prompt becomes an approval that decides whether the command runs;
//! OpenCode's own question tool is answered in Beckon; an answer given in OpenCode first
//! withdraws Beckon's question; with Beckon not running OpenCode's prompt is left as it was.
//! Setup keeps the other settings, OpenCode starts Beckon's MCP server, and `--remove` gives the
//! files back as they were.
//!
//! Each OpenCode has its own HOME and XDG folders, with `@opencode-ai/plugin` marked installed
//! so it makes no connection beyond loopback.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use beckon_gateway::Discovery;
use beckon_testkit::scripted_model::{Request, Script, ScriptedModel, Turn};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::support::served;

/// The id the scripted model gives its one tool call.
const CALL: &str = "call_beckon_1";
/// What OpenCode is asked to do in every scenario.
const PROMPT: &str = "Please do the thing";
/// The question both question scenarios ask.
const COLOR_QUESTION: &str = "Which color should I use?";

fn opencode() -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/agents/node_modules/.bin/opencode");
    assert!(path.exists(), "no OpenCode at {}: run `npm ci` in tests/agents", path.display());
    path
}

/// A model that calls `tool` with `arguments` once, then says "Done." after the result; a
/// request offering no tools (OpenCode naming the session) gets a title.
fn calling(tool: &str, arguments: Value) -> Script {
    let tool = tool.to_owned();
    Arc::new(move |request: &Request| {
        if request.tool_names().is_empty() {
            return Turn::Text("A title".into());
        }
        if request.tool_results().is_empty() {
            Turn::call(CALL, &tool, arguments.clone())
        } else {
            Turn::Text("Done.".into())
        }
    })
}

fn run_bash(command: &str) -> Script {
    calling("bash", json!({"command": command, "description": "Run the command"}))
}

fn color_questions() -> Value {
    json!([{"question": COLOR_QUESTION, "header": "Color",
        "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}]}])
}

/// `opencode.json` as OpenCode writes it (two-space JSON and a final newline), with the fake
/// provider, bash asking for permission, and settings of the person's own.
fn project_config(base_url: &str) -> String {
    let config = json!({
        "$schema": "https://opencode.ai/config.json",
        "model": "fake/fake-model",
        "small_model": "fake/fake-model",
        "autoupdate": false,
        "share": "disabled",
        "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "Fake",
            "options": {"baseURL": base_url, "apiKey": "sk-fake"},
            "models": {"fake-model": {"name": "Fake Model", "tool_call": true,
                "limit": {"context": 128000, "output": 4096}}}}},
        "permission": {"bash": "ask"},
        "instructions": ["CONTRIBUTING.md"],
        "mcp": {"docs": {"type": "remote", "url": "http://127.0.0.1:9/mcp", "enabled": false}},
    });
    format!("{}\n", serde_json::to_string_pretty(&config).unwrap())
}

/// Marks `@opencode-ai/plugin` installed in a folder OpenCode installs it into on every start.
fn mark_plugin_package_installed(folder: &Path) {
    std::fs::create_dir_all(folder.join("node_modules")).unwrap();
    let lock = json!({"lockfileVersion": 3, "packages": {"": {"dependencies": {"@opencode-ai/plugin": "*"}}}});
    std::fs::write(folder.join("package-lock.json"), lock.to_string()).unwrap();
}

/// OpenCode's folders, Beckon (or not) and the scripted model, before OpenCode starts.
struct Folders {
    root: tempfile::TempDir,
    project: PathBuf,
    config_home: PathBuf,
    beckon_data: PathBuf,
}

impl Folders {
    fn new(base_url: &str) -> Folders {
        let root = tempfile::tempdir().unwrap();
        let project = root.path().join("shop");
        let config_home = root.path().join("config");
        for dir in ["home", "data", "cache", "state", "beckon-data"] {
            std::fs::create_dir_all(root.path().join(dir)).unwrap();
        }
        mark_plugin_package_installed(&config_home.join("opencode"));
        mark_plugin_package_installed(&project.join(".opencode"));
        std::fs::write(project.join("opencode.json"), project_config(base_url)).unwrap();
        let beckon_data = root.path().join("beckon-data");
        Folders { root, project, config_home, beckon_data }
    }

    fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }

    /// `beckon setup opencode` with `args`, in the project, as this person.
    async fn setup(&self, args: &[&str]) -> String {
        let mut command = Command::new(env!("CARGO_BIN_EXE_beckon"));
        command
            .args(["setup", "opencode"])
            .args(args)
            .current_dir(&self.project)
            .env("HOME", self.home())
            .env("XDG_CONFIG_HOME", &self.config_home);
        for name in beckon_agents::connect::PLACE_VARS.iter().filter(|name| **name != "XDG_CONFIG_HOME") {
            command.env_remove(name);
        }
        let output = served::output(&mut command).await;
        // `--check` also reaches Beckon, and fails where none runs for this home.
        let ok = output.status.success() || args.contains(&"--check");
        assert!(ok, "beckon setup opencode {args:?}: {}", served::text(&output.stderr));
        served::text(&output.stdout)
    }
}

/// `opencode serve` on these folders, with Beckon (or not) and the scripted model.
struct Rig {
    folders: Folders,
    model: ScriptedModel,
    beckon: Option<(Child, Discovery)>,
    opencode: Child,
    /// OpenCode's base URL.
    url: String,
    /// Everything OpenCode printed, its logs included.
    output: Arc<Mutex<String>>,
    http: reqwest::Client,
}

impl Rig {
    /// Connected in `scope`, with Beckon running or not.
    async fn start(script: Script, scope: &str, with_beckon: bool) -> Rig {
        let model = ScriptedModel::start(script).await;
        let folders = Folders::new(&model.v1_url());
        folders.setup(&["--scope", scope]).await;
        Rig::open(folders, model, with_beckon).await
    }

    async fn open(folders: Folders, model: ScriptedModel, with_beckon: bool) -> Rig {
        let beckon = if with_beckon {
            let (serve, gateway) = served::serve_approving(&folders.beckon_data).await;
            Some((serve, gateway))
        } else {
            None
        };
        let root = folders.root.path();
        let mut command = Command::new(opencode());
        command
            .args(["serve", "--port", "0", "--hostname", "127.0.0.1", "--print-logs", "--log-level", "INFO"])
            .current_dir(&folders.project)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", folders.home())
            .env("XDG_CONFIG_HOME", &folders.config_home)
            .env("XDG_DATA_HOME", root.join("data"))
            .env("XDG_CACHE_HOME", root.join("cache"))
            .env("XDG_STATE_HOME", root.join("state"))
            .env("OPENCODE_DISABLE_MODELS_FETCH", "1")
            .env("BECKON_DATA_DIR", &folders.beckon_data)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut opencode = command.spawn().unwrap();
        let output = Arc::new(Mutex::new(String::new()));
        for stream in [
            Box::new(opencode.stdout.take().unwrap()) as Box<dyn tokio::io::AsyncRead + Unpin + Send>,
            Box::new(opencode.stderr.take().unwrap()),
        ] {
            let output = output.clone();
            tokio::spawn(async move {
                let mut lines = BufReader::new(stream).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    let mut all = output.lock().unwrap();
                    all.push_str(&line);
                    all.push('\n');
                }
            });
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        let url = loop {
            let printed = output.lock().unwrap().clone();
            if let Some(at) = printed.find("listening on http://") {
                let rest = &printed[at + "listening on ".len()..];
                break rest.split_whitespace().next().unwrap().to_owned();
            }
            assert!(Instant::now() < deadline, "opencode serve did not start:\n{printed}");
            tokio::time::sleep(Duration::from_millis(25)).await;
        };
        Rig { folders, model, beckon, opencode, url, output, http: reqwest::Client::new() }
    }

    fn project(&self) -> &Path {
        &self.folders.project
    }

    fn printed(&self) -> String {
        self.output.lock().unwrap().clone()
    }

    /// A request to OpenCode for this project.
    fn opencode_url(&self, path: &str) -> String {
        let directory: String = url_encode(&self.project().display().to_string());
        format!("{}{path}?directory={directory}", self.url)
    }

    /// Starts a session and sends it the prompt.
    async fn prompt(&self) -> String {
        let session: Value =
            self.http.post(self.opencode_url("/session")).json(&json!({})).send().await.unwrap().json().await.unwrap();
        let id = session["id"].as_str().unwrap().to_owned();
        let sent = self
            .http
            .post(self.opencode_url(&format!("/session/{id}/prompt_async")))
            .json(&json!({"parts": [{"type": "text", "text": PROMPT}]}))
            .send()
            .await
            .unwrap();
        assert!(sent.status().is_success(), "{}", sent.status());
        id
    }

    /// The permission requests OpenCode waits on.
    async fn opencode_permissions(&self) -> Vec<Value> {
        let listed: Value = self.http.get(self.opencode_url("/permission")).send().await.unwrap().json().await.unwrap();
        listed.as_array().cloned().unwrap_or_default()
    }

    /// The first permission request OpenCode waits on, once there is one.
    async fn opencode_permission(&self) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(first) = self.opencode_permissions().await.into_iter().next() {
                return first;
            }
            assert!(Instant::now() < deadline, "OpenCode asked no permission:\n{}", self.printed());
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Answers a permission request through OpenCode's own API, as its terminal does.
    async fn reply_in_opencode(&self, id: &str, reply: &str) {
        let replied = self
            .http
            .post(self.opencode_url(&format!("/permission/{id}/reply")))
            .json(&json!({"reply": reply}))
            .send()
            .await
            .unwrap();
        assert!(replied.status().is_success(), "{}", replied.status());
        assert_eq!(replied.json::<Value>().await.unwrap(), json!(true));
    }

    fn gateway(&self) -> &Discovery {
        &self.beckon.as_ref().expect("this rig runs Beckon").1
    }

    async fn beckon_get(&self, path: &str) -> Value {
        let url = format!("{}{path}", self.gateway().url);
        self.http.get(url).bearer_auth(&self.gateway().token).send().await.unwrap().json().await.unwrap()
    }

    /// The first question pending in Beckon, once there is one.
    async fn pending(&self) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let listed = self.beckon_get("/v1/questions?status=pending").await;
            if let Some(first) = listed["questions"].as_array().and_then(|q| q.first()) {
                return first.clone();
            }
            assert!(Instant::now() < deadline, "nothing reached Beckon; OpenCode printed:\n{}", self.printed());
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Answers a question in Beckon, as the person would.
    async fn answer(&self, id: &str, body: Value) {
        let url = format!("{}/v1/questions/{id}/answer", self.gateway().url);
        let response = self.http.post(url).bearer_auth(&self.gateway().token).json(&body).send().await.unwrap();
        assert!(response.status().is_success(), "{}: {}", response.status(), response.text().await.unwrap());
    }

    /// The text of the tool result the model got for its call, once it got one.
    async fn tool_result(&self) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(text) = self.model.tool_result(CALL) {
                return text;
            }
            assert!(Instant::now() < deadline, "the model got no tool result; OpenCode printed:\n{}", self.printed());
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Waits for `file` in the project to be written.
    /// The file's text once the command has written a whole line to it: the shell creates
    /// the file before it writes, so an empty file is not yet the command's output.
    async fn written(&self, file: &str) -> String {
        let path = self.project().join(file);
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            if text.ends_with('\n') {
                return text;
            }
            assert!(Instant::now() < deadline, "{file} was not written; OpenCode printed:\n{}", self.printed());
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for Rig {
    fn drop(&mut self) {
        let _ = self.opencode.start_kill();
        if let Some((serve, _)) = &mut self.beckon {
            let _ = serve.start_kill();
        }
    }
}

fn url_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_model_asks_through_beckons_mcp_tool_and_gets_the_persons_answer() {
    let arguments = json!({"questions": [{"question": COLOR_QUESTION, "header": "Color", "multiSelect": false,
        "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}]}]});
    let rig = Rig::start(calling("beckon_ask_user_question", arguments), "project", true).await;
    rig.prompt().await;
    let question = rig.pending().await;
    assert_eq!(question["input"]["questions"][0]["question"], COLOR_QUESTION, "{question}");
    assert_eq!(question["agent"], "opencode", "the name its approvals carry");
    let offered = rig.model.requests().iter().flat_map(Request::tool_names).collect::<Vec<_>>();
    assert!(offered.iter().any(|name| name == "beckon_ask_user_question"), "{offered:?}");
    rig.answer(question["request_id"].as_str().unwrap(), json!({"answer": "Blue"})).await;
    let result = rig.tool_result().await;
    assert!(result.contains("Blue") && result.contains("answered"), "{result}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_permission_allowed_in_beckon_runs_the_command() {
    let rig = Rig::start(run_bash("echo hi > allowed.txt"), "project", true).await;
    let session = rig.prompt().await;
    let approval = rig.pending().await;
    assert_eq!(approval["agent"], "opencode");
    let asked = &approval["input"]["approval"];
    assert_eq!(asked["tool_name"], "bash");
    assert_eq!(asked["input"]["command"], "echo hi > allowed.txt");
    assert_eq!(asked["project"], rig.project().display().to_string());
    assert_eq!(asked["session"], session);
    assert_eq!(approval["input"]["questions"][0]["question"], "Allow OpenCode to run this command?");
    rig.answer(approval["request_id"].as_str().unwrap(), json!({"answer": "Allow"})).await;
    assert_eq!(rig.written("allowed.txt").await, "hi\n");
    rig.tool_result().await;
    let question = rig.beckon_get(&format!("/v1/questions/{}", approval["request_id"].as_str().unwrap())).await;
    assert_eq!(question["status"], "answered");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_permission_denied_in_beckon_does_not_run_and_tells_the_model_why() {
    let rig = Rig::start(run_bash("echo hi > denied.txt"), "project", true).await;
    rig.prompt().await;
    let approval = rig.pending().await;
    let answer = json!({"answers": [{"selected": ["Deny"], "comment": "Write it under /tmp instead"}]});
    rig.answer(approval["request_id"].as_str().unwrap(), answer).await;
    let result = rig.tool_result().await;
    assert!(result.contains("Write it under /tmp instead"), "{result}");
    assert!(!rig.project().join("denied.txt").exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn opencodes_own_question_is_answered_in_beckon_when_connected_for_the_user() {
    let rig = Rig::start(calling("question", json!({"questions": color_questions()})), "user", true).await;
    assert!(rig.folders.config_home.join("opencode/plugins/beckon.js").exists());
    rig.prompt().await;
    let question = rig.pending().await;
    assert_eq!(question["agent"], "opencode");
    assert_eq!(question["input"]["questions"][0]["question"], COLOR_QUESTION, "{question}");
    assert_eq!(question["input"]["person_only"], true, "{question}");
    rig.answer(question["request_id"].as_str().unwrap(), json!({"answer": "Blue"})).await;
    let result = rig.tool_result().await;
    assert!(result.contains(&format!("User has answered your questions: \"{COLOR_QUESTION}\"=\"Blue\"")), "{result}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_answer_in_opencode_first_withdraws_the_question_from_beckon() {
    let rig = Rig::start(run_bash("echo hi > first.txt"), "project", true).await;
    rig.prompt().await;
    let approval = rig.pending().await;
    let id = approval["request_id"].as_str().unwrap();
    let permission = rig.opencode_permission().await;
    rig.reply_in_opencode(permission["id"].as_str().unwrap(), "once").await;
    assert_eq!(rig.written("first.txt").await, "hi\n");
    let deadline = Instant::now() + Duration::from_secs(10);
    let question = loop {
        let question = rig.beckon_get(&format!("/v1/questions/{id}")).await;
        if question["status"] != "pending" {
            break question;
        }
        assert!(Instant::now() < deadline, "Beckon's question stayed pending; OpenCode printed:\n{}", rig.printed());
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(question["status"], "cancelled");
    assert_eq!(question["outcome"]["reason"], "answered in the terminal");
}

#[tokio::test(flavor = "multi_thread")]
async fn with_beckon_not_running_the_permission_stays_opencodes() {
    let rig = Rig::start(run_bash("echo hi > kept.txt"), "project", false).await;
    rig.prompt().await;
    let permission = rig.opencode_permission().await;
    // The plugin ran the hook, which found no Beckon and printed nothing.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !rig.printed().contains("leaving this prompt to OpenCode") {
        assert!(Instant::now() < deadline, "the hook's word did not reach OpenCode's log:\n{}", rig.printed());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(rig.opencode_permissions().await.len(), 1, "the prompt is still OpenCode's to answer");
    assert!(!rig.project().join("kept.txt").exists());
    rig.reply_in_opencode(permission["id"].as_str().unwrap(), "once").await;
    assert_eq!(rig.written("kept.txt").await, "hi\n");
    rig.tool_result().await;
    let printed = rig.printed();
    for line in printed.lines().filter(|line| line.contains("ERROR")) {
        assert!(!line.to_lowercase().contains("plugin") && !line.contains("beckon"), "{line}\n\n{printed}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn setup_keeps_the_other_settings_opencode_starts_beckons_server_and_remove_gives_the_files_back() {
    let model = ScriptedModel::start(run_bash("true")).await;
    let folders = Folders::new(&model.v1_url());
    let config_file = folders.project.join("opencode.json");
    let original = std::fs::read_to_string(&config_file).unwrap();
    let plugin_file = folders.project.join(".opencode/plugins/beckon.js");
    assert!(folders.setup(&["--scope", "project", "--check"]).await.contains("not connected"));

    let said = folders.setup(&["--scope", "project"]).await;
    assert!(said.contains(&plugin_file.display().to_string()), "{said}");
    let config: Value = serde_json::from_str(&std::fs::read_to_string(&config_file).unwrap()).unwrap();
    let before: Value = serde_json::from_str(&original).unwrap();
    assert_eq!(
        config["mcp"]["beckon"],
        json!({"type": "local", "command": [env!("CARGO_BIN_EXE_beckon"), "mcp"], "enabled": true})
    );
    for key in ["model", "provider", "permission", "instructions", "$schema"] {
        assert_eq!(config[key], before[key], "{key}");
    }
    assert_eq!(config["mcp"]["docs"], before["mcp"]["docs"]);
    assert!(std::fs::read_to_string(&plugin_file).unwrap().contains(env!("CARGO_BIN_EXE_beckon")));
    assert!(folders.setup(&["--scope", "project", "--check"]).await.contains("OpenCode (project scope): connected"));

    let rig = Rig::open(folders, model, false).await;
    let deadline = Instant::now() + Duration::from_secs(30);
    let servers = loop {
        let servers: Value = rig.http.get(rig.opencode_url("/mcp")).send().await.unwrap().json().await.unwrap();
        if servers["beckon"]["status"] == "connected" {
            break servers;
        }
        assert!(Instant::now() < deadline, "{servers}\n{}", rig.printed());
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(servers["docs"]["status"], "disabled", "{servers}");

    let said = rig.folders.setup(&["--scope", "project", "--remove"]).await;
    assert!(said.contains("Removed Beckon from"), "{said}");
    assert_eq!(std::fs::read_to_string(&config_file).unwrap(), original, "opencode.json as it was");
    assert!(!plugin_file.exists());
    assert!(!plugin_file.parent().unwrap().exists(), "the plugins folder setup made is gone");
    assert!(rig.folders.setup(&["--scope", "project", "--check"]).await.contains("not connected"));
}
