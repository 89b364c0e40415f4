//! The real Gemini CLI (pinned in tests/agents) connected with `beckon setup gemini`, against a
//! scripted Gemini API on loopback:
//!
//! - headless (`gemini -p`), the model calls Beckon's trusted `ask_user_question` over MCP; the
//!   person's answer in Beckon reaches the model as that call's function response;
//! - interactive, in tmux: Gemini's permission prompt shows in Beckon as a notice naming the
//!   command and the project, and goes when the person allows it in the terminal (the command
//!   ran) or, after refusing it there, types the next prompt;
//! - with no Beckon running (or nothing answering where it was), the hook prints nothing and
//!   ends at once, and Gemini's prompt comes and goes as if there were no hook;
//! - `beckon setup gemini` keeps every other setting, is read back by `gemini mcp list`
//!   (also from `GEMINI_CLI_HOME` and a trusted project), and `--remove` gives back the file
//!   byte for byte.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use beckon_gateway::Discovery;
use beckon_testkit::scripted_model::{Request, Script, ScriptedModel, Turn};
use serde_json::{Value, json};

use crate::support::served;

const API_KEY: &str = "gemini-test-key-0123456789";
const ASK: &str = "mcp_beckon_ask_user_question";
const SHELL: &str = "run_shell_command";

fn gemini() -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/agents/node_modules/.bin/gemini");
    assert!(path.exists(), "no Gemini CLI at {}: run `npm ci` in tests/agents", path.display());
    path
}

fn beckon_path() -> String {
    Path::new(env!("CARGO_BIN_EXE_beckon")).canonicalize().unwrap().display().to_string()
}

/// A home with Gemini set up to run offline (an API key, no telemetry, no update checks), the
/// project folder trusted the way Gemini records it, and Beckon's data folder.
struct Home {
    dir: tempfile::TempDir,
    project: PathBuf,
    data: PathBuf,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("shop");
        std::fs::create_dir_all(&project).unwrap();
        let gemini_dir = dir.path().join(".gemini");
        std::fs::create_dir_all(&gemini_dir).unwrap();
        let settings = json!({"security": {"auth": {"selectedType": "gemini-api-key"}},
            "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false},
            "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
            "model": {"name": "gemini-2.5-flash"}});
        std::fs::write(gemini_dir.join("settings.json"), serde_json::to_string_pretty(&settings).unwrap()).unwrap();
        let trusted = json!({project.display().to_string(): "TRUST_FOLDER"});
        std::fs::write(gemini_dir.join("trustedFolders.json"), trusted.to_string()).unwrap();
        let data = dir.path().join("beckon-data");
        Home { dir, project, data }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    /// `beckon setup gemini <args>` in the project, as the person runs it.
    fn setup(&self, args: &[&str], env: &[(&str, &Path)]) -> String {
        let mut command = Command::new(env!("CARGO_BIN_EXE_beckon"));
        command.args(["setup", "gemini"]).args(args).current_dir(&self.project);
        command.env("HOME", self.dir.path()).env_remove("GEMINI_CLI_HOME");
        for (name, value) in env {
            command.env(name, value);
        }
        let output = command.output().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        // `--check` also reaches Beckon, and fails where none runs for this home.
        let ok = output.status.success() || args.contains(&"--check");
        assert!(ok, "{stdout}{}", String::from_utf8_lossy(&output.stderr));
        stdout
    }

    /// What Gemini runs with: this home, the fake model, Beckon's data folder; nothing else.
    fn env(&self, model: &ScriptedModel) -> Vec<(&'static str, String)> {
        vec![
            ("HOME", self.dir.path().display().to_string()),
            ("PATH", std::env::var("PATH").unwrap_or_default()),
            ("TERM", "xterm-256color".into()),
            ("BECKON_DATA_DIR", self.data.display().to_string()),
            ("GEMINI_API_KEY", API_KEY.into()),
            ("GOOGLE_GEMINI_BASE_URL", model.url.clone()),
        ]
    }

    /// `beckon serve` on the data folder, letting this test answer as the person would.
    async fn serve(&self) -> (tokio::process::Child, Discovery) {
        let serve = served::beckon(&self.data)
            .args(["serve", "--port", "0"])
            .env("BECKON_SCRIPTS_MAY_APPROVE", "1")
            .spawn()
            .unwrap();
        let gateway =
            wait_for("beckon serve's gateway.json", Duration::from_secs(30), || Discovery::read(&self.data).ok()).await;
        (serve, gateway)
    }
}

/// Waits until `found` gives something, polling; fails naming `what` after `limit`.
async fn wait_for<T>(what: &str, limit: Duration, mut found: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(value) = found() {
            return value;
        }
        assert!(Instant::now() < deadline, "no {what} within {limit:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn get(gateway: &Discovery, path: &str) -> Value {
    let url = format!("{}{path}", gateway.url);
    reqwest::Client::new().get(url).bearer_auth(&gateway.token).send().await.unwrap().json().await.unwrap()
}

async fn notices(gateway: &Discovery) -> Vec<Value> {
    get(gateway, "/v1/notices").await["notices"].as_array().cloned().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_question_asked_over_mcp_is_answered_in_beckon_and_reaches_the_model() {
    let home = Home::new();
    home.setup(&[], &[]);
    let (_serve, gateway) = home.serve().await;
    let question = json!({"questions": [{"question": "Which color should the banner be?", "header": "Color",
        "multiSelect": false, "options": [{"label": "Red", "description": "Warm"}, {"label": "Blue", "description": "Calm"}]}]});
    let script: Script = Arc::new(move |request: &Request| {
        if !request.function_responses().is_empty() {
            Turn::Text("Done.".into())
        } else if request.tool_names().iter().any(|name| name == ASK) {
            Turn::function(ASK, question.clone())
        } else {
            Turn::Text("I cannot ask.".into())
        }
    });
    let model = ScriptedModel::start(script).await;
    let mut run = tokio::process::Command::new(gemini());
    run.args(["-p", "Pick a banner color with me", "-o", "stream-json"]).current_dir(&home.project).env_clear();
    run.envs(home.env(&model)).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true);
    let mut run = run.process_group(0).spawn().unwrap();
    let _group = Group(run.id().unwrap());

    let deadline = Instant::now() + Duration::from_secs(60);
    let pending = loop {
        let listed = get(&gateway, "/v1/questions?status=pending").await;
        if let Some(first) = listed["questions"].as_array().and_then(|q| q.first()) {
            break first.clone();
        }
        if let Some(status) = run.try_wait().unwrap() {
            let requests = model.requests();
            let offered = requests.first().map(Request::tool_names).unwrap_or_default();
            panic!("gemini ended ({status}) without asking Beckon; the model was offered {offered:?}");
        }
        assert!(Instant::now() < deadline, "the question never reached Beckon");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(pending["input"]["questions"][0]["question"], "Which color should the banner be?");
    assert_eq!(pending["agent"], "gemini", "the name its notices carry, not its MCP client's");
    let url = format!("{}/v1/questions/{}/answer", gateway.url, pending["request_id"].as_str().unwrap());
    let answered = reqwest::Client::new()
        .post(url)
        .bearer_auth(&gateway.token)
        .json(&json!({"answer": "Blue"}))
        .send()
        .await
        .unwrap();
    assert!(answered.status().is_success(), "{}", answered.status());

    let output =
        tokio::time::timeout(Duration::from_secs(60), run.wait_with_output()).await.expect("gemini hung").unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    let requests = model.requests();
    assert!(requests[0].tool_names().iter().any(|name| name == ASK), "offered: {:?}", requests[0].tool_names());
    let (name, response) = requests.iter().flat_map(Request::function_responses).next().expect("no function response");
    assert_eq!(name, ASK);
    let text = response["output"].as_str().unwrap();
    assert!(
        text.contains(r#""outcome":"answered""#) && text.contains(r#""Which color should the banner be?":"Blue""#),
        "{text}"
    );
    let result =
        stdout.lines().filter_map(|line| serde_json::from_str::<Value>(line).ok()).find(|e| e["type"] == "tool_result");
    assert_eq!(result.expect("no tool_result event")["status"], "success", "{stdout}");
}

/// Gemini in tmux on its own tmux server.
struct Terminal {
    socket: String,
}

static TERMINALS: AtomicUsize = AtomicUsize::new(0);

impl Terminal {
    fn open(home: &Home, model: &ScriptedModel) -> Terminal {
        let socket = format!("beckon-gemini-{}-{}", std::process::id(), TERMINALS.fetch_add(1, Ordering::Relaxed));
        let terminal = Terminal { socket };
        let mut command = terminal.tmux();
        command.args(["new-session", "-d", "-s", "g", "-x", "160", "-y", "50", "-c"]).arg(&home.project);
        command.args(["env", "-i"]);
        for (name, value) in home.env(model) {
            command.arg(format!("{name}={value}"));
        }
        assert!(command.arg(gemini()).status().unwrap().success(), "tmux did not start");
        terminal
            .wait_for_screen("Gemini's input", Duration::from_secs(60), |screen| screen.contains("Type your message"));
        terminal
    }

    fn tmux(&self) -> Command {
        let mut command = Command::new("tmux");
        command.arg("-L").arg(&self.socket).stdin(Stdio::null());
        command
    }

    fn screen(&self) -> String {
        let output = self.tmux().args(["capture-pane", "-p", "-t", "g"]).output().unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    fn keys(&self, keys: &[&str]) {
        assert!(self.tmux().args(["send-keys", "-t", "g"]).args(keys).status().unwrap().success());
    }

    /// Types `text` into Gemini's input and sends it once the input shows it, until the model
    /// gets it (Enter is sent again if the first is lost, as when it comes while the last turn
    /// winds down).
    fn prompt(&self, text: &str, model: &ScriptedModel) {
        let sent = || model.requests().iter().any(|request| request.last_prompt() == text);
        self.keys(&["-l", text]);
        self.wait_for_screen("the typed prompt", Duration::from_secs(10), |screen| {
            screen.contains(&format!("> {text}"))
        });
        for _ in 0..5 {
            self.keys(&["Enter"]);
            let deadline = Instant::now() + Duration::from_secs(3);
            while Instant::now() < deadline {
                if sent() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        panic!("the model never got {text:?}; Gemini shows:\n{}", self.screen());
    }

    /// Answers Gemini's permission prompt with `key` once it shows, sending it again while the
    /// prompt stays (a key that comes as the prompt is drawn can be lost).
    fn answer(&self, key: &str) {
        self.wait_for_screen("permission prompt", Duration::from_secs(30), asks_permission);
        for _ in 0..5 {
            self.keys(&[key]);
            let deadline = Instant::now() + Duration::from_secs(2);
            while Instant::now() < deadline {
                if !asks_permission(&self.screen()) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        panic!("the permission prompt stayed after {key}:\n{}", self.screen());
    }

    fn wait_for_screen(&self, what: &str, limit: Duration, done: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + limit;
        loop {
            let screen = self.screen();
            if done(&screen) {
                return screen;
            }
            assert!(Instant::now() < deadline, "no {what} on Gemini's screen within {limit:?}:\n{screen}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        // Gemini outlives its terminal's hangup: end it, the copy it restarts itself as and its
        // MCP server, by the pane's process group.
        if let Ok(panes) = self.tmux().args(["list-panes", "-t", "g", "-F", "#{pane_pid}"]).output() {
            for pid in String::from_utf8_lossy(&panes.stdout).split_whitespace() {
                end_group(pid);
            }
        }
        let _ = self.tmux().arg("kill-server").status();
    }
}

/// Ends the process group `leader` leads.
fn end_group(leader: &str) {
    let _ = Command::new("kill").args(["-KILL", "--", &format!("-{leader}")]).stderr(Stdio::null()).status();
}

/// Ends a headless Gemini's process group when dropped (the copy Gemini restarts itself as
/// outlives its parent).
struct Group(u32);

impl Drop for Group {
    fn drop(&mut self) {
        end_group(&self.0.to_string());
    }
}

/// A model that asks to run the command a prompt names after "run:", then says "Done." once it
/// has the result; any other prompt it just answers.
fn running_commands() -> Script {
    Arc::new(|request: &Request| {
        let prompt = request.last_prompt();
        match prompt.split_once("run: ") {
            Some(_) if !request.function_responses().is_empty() => Turn::Text("Done.".into()),
            Some((_, command)) => Turn::function(SHELL, json!({"command": command, "description": "As asked"})),
            None => Turn::Text("Fine.".into()),
        }
    })
}

/// Whether Gemini shows its permission prompt.
fn asks_permission(screen: &str) -> bool {
    screen.contains("Allow once")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_permission_prompt_is_a_notice_until_the_person_answers_it_in_the_terminal() {
    let home = Home::new();
    home.setup(&[], &[]);
    let (_serve, gateway) = home.serve().await;
    let model = ScriptedModel::start(running_commands()).await;
    let terminal = Terminal::open(&home, &model);
    assert!(notices(&gateway).await.is_empty());

    // Allowed in the terminal: the command runs, and the notice goes.
    terminal.prompt("Please run: echo allowed > a.txt", &model);
    let notice = wait_for_notice(&gateway, &terminal).await;
    assert_eq!(notice["agent"], "gemini");
    assert_eq!(notice["project"], home.project.display().to_string());
    assert_eq!(notice["message"], "Gemini CLI asks to run `echo allowed > a.txt`. Answer it in Gemini CLI's terminal.");
    assert!(notice["key"].as_str().unwrap().starts_with("gemini:"), "{notice}");
    terminal.answer("Enter");
    wait_until_cleared(&gateway, &terminal).await;
    assert_eq!(std::fs::read_to_string(home.project.join("a.txt")).unwrap(), "allowed\n");

    // Refused in the terminal: Gemini tells no hook, so the notice stays until the person types
    // the next prompt.
    terminal.wait_for_screen("the turn's end", Duration::from_secs(30), |screen| screen.contains("Done."));
    terminal.prompt("Please run: echo refused > b.txt", &model);
    let refused = wait_for_notice(&gateway, &terminal).await;
    assert_eq!(refused["key"], notice["key"], "one notice key per Gemini session");
    assert!(refused["message"].as_str().unwrap().contains("`echo refused > b.txt`"), "{refused}");
    terminal.answer("Escape");
    terminal.wait_for_screen("the refusal", Duration::from_secs(30), |screen| screen.contains("Request cancelled"));
    assert_eq!(notices(&gateway).await.len(), 1, "nothing told Beckon of the refusal");
    terminal.prompt("Never mind", &model);
    wait_until_cleared(&gateway, &terminal).await;
    assert!(!home.project.join("b.txt").exists());
}

async fn wait_for_notice(gateway: &Discovery, terminal: &Terminal) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(notice) = notices(gateway).await.first() {
            return notice.clone();
        }
        assert!(Instant::now() < deadline, "no notice reached Beckon; Gemini shows:\n{}", terminal.screen());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn wait_until_cleared(gateway: &Discovery, terminal: &Terminal) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !notices(gateway).await.is_empty() {
        assert!(Instant::now() < deadline, "the notice stayed; Gemini shows:\n{}", terminal.screen());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn with_beckon_not_running_the_hook_ends_at_once_and_geminis_prompt_decides() {
    let home = Home::new();
    home.setup(&[], &[]);
    // The hook itself, as Gemini runs it: nothing printed (decide nothing), exit 0, well within
    // a second.
    let event = json!({"session_id": "4010bf6a", "cwd": home.project, "hook_event_name": "Notification",
        "notification_type": "ToolPermission", "message": "Tool Confirm Shell Command requires execution",
        "details": {"type": "exec", "title": "Confirm Shell Command", "command": "ls", "rootCommand": "ls"}});
    let started = Instant::now();
    let mut hook = Command::new(env!("CARGO_BIN_EXE_beckon"))
        .args(["hook", "gemini"])
        .env("BECKON_DATA_DIR", &home.data)
        .env_remove("BECKON_URL")
        .env_remove("BECKON_TOKEN")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    hook.stdin.take().unwrap().write_all(event.to_string().as_bytes()).unwrap();
    let output = hook.wait_with_output().unwrap();
    let took = started.elapsed();
    assert!(output.status.success());
    assert_eq!(String::from_utf8_lossy(&output.stdout), "", "{}", String::from_utf8_lossy(&output.stderr));
    assert!(output.stderr.is_empty(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(took < Duration::from_secs(1), "the hook took {took:?} with no Beckon running");
    // The same where nothing answers at the address Beckon was given by (a tunnel down).
    let mut hook = Command::new(env!("CARGO_BIN_EXE_beckon"))
        .args(["hook", "gemini"])
        .env("BECKON_DATA_DIR", &home.data)
        .env("BECKON_URL", format!("http://127.0.0.1:{}", free_port()))
        .env("BECKON_TOKEN", "bkn_ask_0000000000000000000000000000")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    hook.stdin.take().unwrap().write_all(event.to_string().as_bytes()).unwrap();
    let output = hook.wait_with_output().unwrap();
    assert!(output.status.success());
    assert_eq!(String::from_utf8_lossy(&output.stdout), "", "{}", String::from_utf8_lossy(&output.stderr));

    let model = ScriptedModel::start(running_commands()).await;
    let terminal = Terminal::open(&home, &model);
    terminal.prompt("Please run: echo alone > c.txt", &model);
    let asked = Instant::now();
    terminal.wait_for_screen("permission prompt", Duration::from_secs(30), asks_permission);
    let shown = asked.elapsed();
    assert!(shown < Duration::from_secs(10), "the prompt took {shown:?}");
    terminal.answer("Enter");
    terminal.wait_for_screen("the model's last word", Duration::from_secs(30), |screen| screen.contains("Done."));
    assert_eq!(std::fs::read_to_string(home.project.join("c.txt")).unwrap(), "alone\n");
}

/// Settings as Gemini writes them: two spaces, no final newline.
fn theirs() -> String {
    let settings = json!({"ui": {"theme": "GitHub"}, "security": {"auth": {"selectedType": "gemini-api-key"}},
        "mcpServers": {"github": {"command": "gh-mcp", "args": ["serve"]}},
        "hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "lint-guard"}]}]}});
    serde_json::to_string_pretty(&settings).unwrap()
}

/// A port nobody listens on just now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `gemini mcp list` in `folder` with `env`, as Gemini reads its settings.
fn mcp_list(home: &Home, folder: &Path, env: &[(&str, &Path)]) -> String {
    let mut command = Command::new(gemini());
    command.args(["mcp", "list"]).current_dir(folder).env_clear();
    command.env("HOME", home.dir.path()).env("PATH", std::env::var("PATH").unwrap_or_default());
    command.env("BECKON_DATA_DIR", &home.data);
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command.output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "{text}");
    text
}

#[test]
fn setup_keeps_every_other_setting_gemini_reads_it_and_remove_gives_back_the_file() {
    let home = Home::new();
    let settings = home.path(".gemini/settings.json");
    std::fs::write(&settings, theirs()).unwrap();

    assert!(home.setup(&["--dry-run"], &[]).contains("Would add Beckon to"));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), theirs());
    assert!(home.setup(&["--check"], &[]).contains("Gemini CLI (user scope): not connected"));

    let added = home.setup(&[], &[]);
    assert!(added.contains("Added Beckon to"), "{added}");
    assert!(added.contains("permission prompts now reach Beckon as notices"), "{added}");
    let written = read(&settings);
    let original: Value = serde_json::from_str(&theirs()).unwrap();
    assert_eq!(written["ui"], original["ui"]);
    assert_eq!(written["mcpServers"]["github"], original["mcpServers"]["github"]);
    assert_eq!(written["mcpServers"]["beckon"], json!({"command": beckon_path(), "args": ["mcp"], "trust": true}));
    assert_eq!(written["hooks"]["BeforeTool"], original["hooks"]["BeforeTool"]);
    let command = format!("{} hook gemini", beckon_path());
    for event in ["Notification", "AfterTool", "BeforeAgent", "SessionEnd"] {
        assert_eq!(written["hooks"][event][0]["hooks"][0]["command"], command, "{event}");
    }
    assert!(home.setup(&["--check"], &[]).contains("Gemini CLI (user scope): connected"));
    assert!(home.setup(&[], &[]).contains("Unchanged"));

    let listed = mcp_list(&home, &home.project, &[]);
    assert!(listed.contains(&format!("beckon: {} mcp (stdio)", beckon_path())), "{listed}");
    assert!(listed.contains("github: gh-mcp serve (stdio)"), "{listed}");

    assert!(home.setup(&["--remove"], &[]).contains("Removed Beckon from"));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), theirs(), "byte for byte");
    assert!(home.setup(&["--check"], &[]).contains("not connected"));
}

#[test]
fn gemini_cli_home_and_a_trusted_projects_settings_are_where_gemini_looks() {
    let home = Home::new();
    let elsewhere = home.path("elsewhere");
    home.setup(&[], &[("GEMINI_CLI_HOME", &elsewhere)]);
    assert!(elsewhere.join(".gemini/settings.json").exists());
    assert!(!read(&home.path(".gemini/settings.json")).as_object().unwrap().contains_key("mcpServers"));
    let listed = mcp_list(&home, &home.project, &[("GEMINI_CLI_HOME", &elsewhere)]);
    assert!(listed.contains("beckon:"), "{listed}");

    let added = home.setup(&["--scope", "project"], &[]);
    assert!(added.contains("only once you trust the folder"), "{added}");
    let project_settings = home.project.join(".gemini/settings.json");
    assert_eq!(read(&project_settings)["mcpServers"]["beckon"]["trust"], true);
    let listed = mcp_list(&home, &home.project, &[]);
    assert!(listed.contains(&format!("beckon: {} mcp (stdio)", beckon_path())), "{listed}");
    home.setup(&["--scope", "project", "--remove"], &[]);
    assert!(!project_settings.exists(), "the file setup made goes again");
}
