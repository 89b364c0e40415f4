//! The real Copilot CLI (pinned in tests/agents), connected with `beckon setup copilot` in a
//! temporary home, and a scripted Responses API model on loopback: Beckon's own question tool
//! reaches the person over MCP (allowed at once by the hook, since it asks the person itself)
//! and the answer reaches the model; a command that needs permission becomes a Beckon
//! approval, and allowing runs it while denying tells the model why; with Beckon not running
//! the hook steps aside at once and Copilot's own decision comes. Setup keeps the person's
//! files, Copilot lists the server it wrote, and `--remove` gives the files back byte for byte
//! (however they were laid out) and deletes a settings file setup made.

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use beckon_gateway::Discovery;
use beckon_testkit::scripted_model::{Request, Script, ScriptedModel, Turn};
use serde_json::{Value, json};
use tokio::process::Command;

use crate::support::questions;
use crate::support::served;

fn copilot() -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/agents/node_modules/.bin/copilot");
    assert!(path.exists(), "no Copilot CLI at {}: run `npm ci` in tests/agents", path.display());
    path
}

/// The person's own settings and MCP servers, which setup must keep.
fn their_settings() -> Value {
    json!({"banner": "never", "trustedFolders": ["/home/ada/shop"],
        "hooks": {"preToolUse": [{"type": "command", "bash": "true", "timeoutSec": 5}]}})
}

fn their_servers() -> Value {
    json!({"mcpServers": {"github": {"type": "local", "command": "gh-mcp", "args": [], "tools": ["*"]}}})
}

fn pretty(value: &Value) -> String {
    format!("{}\n", serde_json::to_string_pretty(value).unwrap())
}

/// A temporary home with Copilot's folder, a project, and Beckon's data folder where `beckon`
/// finds it from that home.
struct Rig {
    root: tempfile::TempDir,
    serve: Option<tokio::process::Child>,
    gateway: Option<Discovery>,
    http: reqwest::Client,
    model: ScriptedModel,
}

impl Rig {
    async fn start(script: Script, with_beckon: bool) -> Rig {
        let root = tempfile::Builder::new().prefix("copilot-").tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let model = ScriptedModel::start(script).await;
        std::fs::create_dir_all(root.path().join("home/.copilot")).unwrap();
        std::fs::create_dir_all(root.path().join("shop")).unwrap();
        let (serve, gateway) = if with_beckon {
            let data = root.path().join("home/.local/share/dev.beckon.desktop");
            let (serve, gateway) = served::serve_approving(&data).await;
            (Some(serve), Some(gateway))
        } else {
            (None, None)
        };
        let rig = Rig { root, serve, gateway, http: reqwest::Client::new(), model };
        std::fs::write(rig.settings(), pretty(&their_settings())).unwrap();
        std::fs::write(rig.servers(), pretty(&their_servers())).unwrap();
        rig
    }

    fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }

    fn copilot_home(&self) -> PathBuf {
        self.home().join(".copilot")
    }

    fn settings(&self) -> PathBuf {
        self.copilot_home().join("settings.json")
    }

    fn servers(&self) -> PathBuf {
        self.copilot_home().join("mcp-config.json")
    }

    fn project(&self) -> PathBuf {
        self.root.path().join("shop")
    }

    /// `beckon setup copilot <args>` as the person runs it; its output.
    async fn setup(&self, args: &[&str]) -> String {
        let output = served::output(
            Command::new(env!("CARGO_BIN_EXE_beckon"))
                .args(["setup", "copilot"])
                .args(args)
                .current_dir(self.project())
                .env("HOME", self.home())
                .env("COPILOT_HOME", self.copilot_home())
                .stdin(Stdio::null()),
        )
        .await;
        let stdout = served::text(&output.stdout);
        // `--check` also reaches Beckon, and fails where none runs for this home.
        assert!(output.status.success() || args.contains(&"--check"), "{stdout}{}", served::text(&output.stderr));
        stdout
    }

    /// The real Copilot CLI with this rig's home and model, offline.
    fn copilot(&self, args: &[&str]) -> Command {
        let mut command = Command::new(copilot());
        command
            .args(args)
            .current_dir(self.project())
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.home())
            .env("COPILOT_HOME", self.copilot_home())
            .env("COPILOT_OFFLINE", "true")
            .env("COPILOT_PROVIDER_BASE_URL", self.model.v1_url())
            .env("COPILOT_PROVIDER_WIRE_API", "responses")
            .env("COPILOT_PROVIDER_API_KEY", "sk-fake")
            .env("COPILOT_MODEL", "fake-model")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        command
    }

    /// `copilot -p` on `prompt` in the project, started.
    fn prompt(&self, prompt: &str) -> tokio::process::Child {
        self.copilot(&["-p", prompt, "--trust-folder", "--no-auto-update"]).spawn().unwrap()
    }
    fn gateway(&self) -> &Discovery {
        self.gateway.as_ref().expect("this rig runs Beckon")
    }

    /// The first pending question in Beckon, once there is one.
    async fn pending(&self) -> Value {
        let url = format!("{}/v1/questions?status=pending", self.gateway().url);
        questions::first_listed(&self.http, &url, &self.gateway().token, Duration::from_secs(30), |_| {
            format!("nothing reached Beckon; the model saw {:?}", self.bodies())
        })
        .await
    }

    async fn answer(&self, id: &str, body: Value) {
        let url = format!("{}/v1/questions/{id}/answer", self.gateway().url);
        let response = self.http.post(url).bearer_auth(&self.gateway().token).json(&body).send().await.unwrap();
        assert!(response.status().is_success(), "{}", response.status());
    }

    fn bodies(&self) -> Vec<Value> {
        self.model.requests().into_iter().map(|r| r.body).collect()
    }
}

impl Drop for Rig {
    fn drop(&mut self) {
        if let Some(serve) = &mut self.serve {
            let _ = serve.start_kill();
        }
    }
}

/// Waits for `child` to end, a limit on the whole run.
async fn finish(child: tokio::process::Child, limit: Duration) -> Output {
    match tokio::time::timeout(limit, child.wait_with_output()).await {
        Ok(output) => output.unwrap(),
        Err(_) => panic!("copilot did not finish within {limit:?}"),
    }
}

/// A model that makes one call with `id`, then says "Done.".
fn calling(id: &'static str, name: &'static str, arguments: Value) -> Script {
    Arc::new(move |request: &Request| {
        if request.tool_result(id).is_some() {
            Turn::Text("Done.".into())
        } else {
            Turn::call(id, name, arguments.clone())
        }
    })
}

fn write_file(name: &str) -> Value {
    json!({"command": format!("echo hi > {name}"), "description": format!("Write {name}")})
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn setup_keeps_the_persons_files_copilot_lists_the_server_and_remove_gives_them_back() {
    let rig = Rig::start(calling("call_none", "bash", json!({})), false).await;
    // Settings as a person writes them by hand: four spaces, lists on one line, no final newline.
    let by_hand = "{\n    \"banner\": \"never\",\n    \"trustedFolders\": [\"/home/ada/shop\"],\n    \"hooks\": {\"preToolUse\": [{\"type\": \"command\", \"bash\": \"true\", \"timeoutSec\": 5}]}\n}";
    std::fs::write(rig.settings(), by_hand).unwrap();
    let (settings, servers) = (std::fs::read(rig.settings()).unwrap(), std::fs::read(rig.servers()).unwrap());

    let dry = rig.setup(&["--dry-run"]).await;
    assert!(dry.contains("Would add Beckon to"), "{dry}");
    assert_eq!(std::fs::read(rig.settings()).unwrap(), settings);
    assert_eq!(std::fs::read(rig.servers()).unwrap(), servers);
    assert!(rig.setup(&["--check"]).await.contains("not connected"));

    let added = rig.setup(&[]).await;
    assert!(added.contains("Added Beckon to"), "{added}");
    let beckon = Path::new(env!("CARGO_BIN_EXE_beckon")).canonicalize().unwrap().display().to_string();
    let written = read(&rig.settings());
    assert_eq!(written["banner"], "never");
    assert_eq!(written["hooks"]["preToolUse"], their_settings()["hooks"]["preToolUse"]);
    assert_eq!(
        written["hooks"]["permissionRequest"],
        json!([{"type": "command", "bash": format!("{beckon} hook copilot"), "timeoutSec": 86400}])
    );
    assert_eq!(read(&rig.servers())["mcpServers"]["github"], their_servers()["mcpServers"]["github"]);
    assert!(rig.setup(&["--check"]).await.contains("connected"));
    assert!(!rig.setup(&[]).await.contains("Added"), "a second setup changes nothing");

    // Copilot reads the server setup wrote.
    let got = rig.copilot(&["mcp", "get", "beckon"]).output().await.unwrap();
    let got = served::text(&got.stdout);
    assert!(got.contains(&format!("Command: {beckon} mcp")) && got.contains("Source: User"), "{got}");
    let listed = rig.copilot(&["mcp", "list"]).output().await.unwrap();
    let listed = served::text(&listed.stdout);
    assert!(listed.contains("beckon") && listed.contains("github"), "{listed}");

    let removed = rig.setup(&["--remove"]).await;
    assert!(removed.contains("Removed Beckon from"), "{removed}");
    assert_eq!(std::fs::read(rig.settings()).unwrap(), settings, "settings.json byte for byte as before");
    assert_eq!(std::fs::read(rig.servers()).unwrap(), servers, "mcp-config.json byte for byte as before");
    assert!(rig.setup(&["--check"]).await.contains("not connected"));

    // A settings.json that setup made goes again with Beckon's hooks.
    std::fs::remove_file(rig.settings()).unwrap();
    rig.setup(&[]).await;
    assert!(rig.settings().exists());
    rig.setup(&["--remove"]).await;
    assert!(!rig.settings().exists(), "{:?}", std::fs::read_to_string(rig.settings()));
    assert_eq!(std::fs::read(rig.servers()).unwrap(), servers);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_question_over_mcp_reaches_the_person_and_their_answer_the_model() {
    let question = json!({"questions": [{"question": "Which color should the banner be?", "header": "Color",
        "multiSelect": false, "options": [{"label": "Red", "description": "Warm"}, {"label": "Blue", "description": "Calm"}]}],
        "wait_seconds": 60});
    let rig = Rig::start(calling("call_ask", "beckon-ask_user_question", question), true).await;
    rig.setup(&[]).await;
    let started = Instant::now();
    let run = rig.prompt("Pick a banner color with me");
    let asked = rig.pending().await;
    assert!(asked["input"].get("approval").is_none(), "Beckon's own tool is not an approval: {asked}");
    assert_eq!(asked["input"]["questions"][0]["question"], "Which color should the banner be?", "{asked}");
    assert_eq!(asked["agent"], "copilot", "the name its approvals carry, not its MCP client's");
    rig.answer(asked["request_id"].as_str().unwrap(), json!({"answer": "Blue"})).await;
    let output = finish(run, Duration::from_secs(30)).await;
    assert!(output.status.success(), "{}", served::text(&output.stderr));
    let result = rig.model.tool_result("call_ask").expect("the model got the tool's result");
    let result: Value = serde_json::from_str(&result).unwrap_or_else(|_| panic!("not JSON: {result}"));
    assert_eq!(result["outcome"], "answered");
    assert_eq!(result["answers"], json!({"Which color should the banner be?": "Blue"}));
    eprintln!("the question and its answer took {:?}", started.elapsed());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_command_allowed_in_beckon_runs() {
    let rig = Rig::start(calling("call_sh", "bash", write_file("made.txt")), true).await;
    rig.setup(&[]).await;
    let started = Instant::now();
    let run = rig.prompt("Write the file please");
    let approval = rig.pending().await;
    assert_eq!(approval["agent"], "copilot");
    assert_eq!(approval["input"]["approval"]["tool_name"], "bash");
    assert_eq!(approval["input"]["approval"]["input"]["command"], "echo hi > made.txt");
    assert_eq!(approval["input"]["approval"]["project"], rig.project().display().to_string());
    rig.answer(approval["request_id"].as_str().unwrap(), json!({"answer": "Allow"})).await;
    let output = finish(run, Duration::from_secs(30)).await;
    assert!(output.status.success(), "{}", served::text(&output.stderr));
    assert_eq!(std::fs::read_to_string(rig.project().join("made.txt")).unwrap(), "hi\n");
    eprintln!("the approval took {:?}", started.elapsed());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_command_denied_in_beckon_does_not_run_and_the_model_reads_why() {
    let rig = Rig::start(calling("call_sh", "bash", write_file("made.txt")), true).await;
    rig.setup(&[]).await;
    let run = rig.prompt("Write the file please");
    let approval = rig.pending().await;
    let answer = json!({"answers": [{"selected": ["Deny"], "comment": "Write it under build/ instead"}]});
    rig.answer(approval["request_id"].as_str().unwrap(), answer).await;
    let output = finish(run, Duration::from_secs(30)).await;
    assert!(output.status.success(), "{}", served::text(&output.stderr));
    let result = rig.model.tool_result("call_sh").expect("the model got the call's result");
    assert!(result.contains("Write it under build/ instead"), "{result}");
    assert!(!rig.project().join("made.txt").exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn with_beckon_not_running_the_hook_steps_aside_and_copilot_decides_at_once() {
    let rig = Rig::start(calling("call_sh", "bash", write_file("made.txt")), false).await;
    rig.setup(&[]).await;
    // The hook itself, as Copilot runs it: nothing printed, exit 0, well within a second.
    let event = json!({"hookName": "permissionRequest", "sessionId": "s1", "cwd": rig.project(),
        "toolName": "bash", "toolInput": {"command": "ls"}, "permissionSuggestions": []});
    let started = Instant::now();
    let mut hook = Command::new(env!("CARGO_BIN_EXE_beckon"))
        .args(["hook", "copilot"])
        .env("HOME", rig.home())
        .env_remove("BECKON_DATA_DIR")
        .env_remove("BECKON_URL")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use tokio::io::AsyncWriteExt;
        let mut stdin = hook.stdin.take().unwrap();
        stdin.write_all(event.to_string().as_bytes()).await.unwrap();
    }
    let output = tokio::time::timeout(Duration::from_secs(5), hook.wait_with_output()).await.unwrap().unwrap();
    let took = started.elapsed();
    assert!(output.status.success());
    assert!(output.stdout.is_empty(), "{}", served::text(&output.stdout));
    assert!(took < Duration::from_secs(1), "the hook took {took:?} with no Beckon running");

    // Copilot itself goes on to its own decision without waiting: in `-p` mode, with nobody at
    // its prompt, that is a refusal.
    let started = Instant::now();
    let output = finish(rig.prompt("Write the file please"), Duration::from_secs(20)).await;
    assert!(output.status.success(), "{}", served::text(&output.stderr));
    let result = rig.model.tool_result("call_sh").expect("the model got the call's result");
    assert!(result.contains("ermission denied"), "{result}");
    assert!(!rig.project().join("made.txt").exists());
    eprintln!("copilot decided without Beckon in {:?}", started.elapsed());
}

/// Runs tmux on a server of the test's own.
fn tmux(socket: &str, args: &[&str]) -> std::process::Output {
    std::process::Command::new("tmux").arg("-L").arg(socket).args(args).stdin(Stdio::null()).output().unwrap()
}

/// Ends the test's tmux server however the test ends.
struct TmuxServer(String);

impl Drop for TmuxServer {
    fn drop(&mut self) {
        tmux(&self.0, &["kill-server"]);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn interrupting_copilot_while_beckon_asks_withdraws_the_approval_at_the_next_prompt() {
    let rig = Rig::start(calling("call_sh", "bash", write_file("made.txt")), true).await;
    rig.setup(&[]).await;
    let socket = TmuxServer(format!("beckon-copilot-{}", std::process::id()));
    let env: Vec<String> = [
        ("PATH", std::env::var("PATH").unwrap_or_default()),
        ("TERM", "xterm-256color".into()),
        ("HOME", rig.home().display().to_string()),
        ("COPILOT_HOME", rig.copilot_home().display().to_string()),
        ("COPILOT_OFFLINE", "true".into()),
        ("COPILOT_PROVIDER_BASE_URL", rig.model.v1_url()),
        ("COPILOT_PROVIDER_WIRE_API", "responses".into()),
        ("COPILOT_PROVIDER_API_KEY", "sk-fake".into()),
        ("COPILOT_MODEL", "fake-model".into()),
    ]
    .into_iter()
    .map(|(name, value)| format!("{name}={value}"))
    .collect();
    let copilot = copilot().display().to_string();
    let project = rig.project().display().to_string();
    let mut args = vec!["new-session", "-d", "-s", "cp", "-x", "160", "-y", "45", "-c", &project, "env", "-i"];
    args.extend(env.iter().map(String::as_str));
    args.extend([copilot.as_str(), "--no-auto-update", "-i", "Write the file please"]);
    assert!(tmux(&socket.0, &args).status.success(), "tmux did not start");
    let screen = || served::text(&tmux(&socket.0, &["capture-pane", "-p", "-t", "cp"]).stdout);

    // Copilot asks once whether the person trusts the folder; they say yes.
    let deadline = Instant::now() + Duration::from_secs(30);
    while rig.model.requests().is_empty() {
        if screen().contains("Do you trust the files in this folder?") {
            assert!(tmux(&socket.0, &["send-keys", "-t", "cp", "Enter"]).status.success());
        }
        assert!(Instant::now() < deadline, "Copilot did not ask the model; it shows:\n{}", screen());
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let approval = rig.pending().await;
    let id = approval["request_id"].as_str().unwrap().to_owned();
    // The person interrupts the turn in the terminal; Copilot kills the waiting hook outright.
    for _ in 0..2 {
        assert!(tmux(&socket.0, &["send-keys", "-t", "cp", "Escape"]).status.success());
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    while !screen().contains("cancelled by user") {
        assert!(Instant::now() < deadline, "the turn was not interrupted:\n{}", screen());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let url = format!("{}/v1/questions/{id}", rig.gateway().url);
    let view: Value = rig.http.get(&url).bearer_auth(&rig.gateway().token).send().await.unwrap().json().await.unwrap();
    assert_eq!(view["status"], "pending", "nothing withdrew it yet: {view}");
    // Their next prompt in that session withdraws it.
    assert!(tmux(&socket.0, &["send-keys", "-t", "cp", "-l", "Never mind"]).status.success());
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(tmux(&socket.0, &["send-keys", "-t", "cp", "Enter"]).status.success());
    let deadline = Instant::now() + Duration::from_secs(20);
    let view = loop {
        let view: Value =
            rig.http.get(&url).bearer_auth(&rig.gateway().token).send().await.unwrap().json().await.unwrap();
        if view["status"] != "pending" {
            break view;
        }
        assert!(Instant::now() < deadline, "the approval stayed pending; Copilot shows:\n{}", screen());
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(view["status"], "cancelled", "{view}");
    assert_eq!(view["outcome"]["reason"], "the person went on in Copilot CLI", "{view}");
    assert!(!rig.project().join("made.txt").exists());
}
