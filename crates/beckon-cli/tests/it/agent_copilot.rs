//! The real Copilot CLI (pinned in tests/agents), connected with `beckon setup copilot` in a
//! temporary home, and a scripted Responses API model on loopback: Beckon's own question tool
//! reaches the person over MCP (allowed at once by the hook, since it asks the person itself)
//! and the answer reaches the model; a command that needs permission becomes a Beckon
//! approval, and allowing runs it while denying tells the model why; with Beckon not running
//! the hook steps aside at once and Copilot's own decision comes. Setup keeps the person's
//! files, Copilot lists the server it wrote, and `--remove` gives the files back byte for byte
//! (however they were laid out) and deletes a settings file setup made.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use beckon_testkit::scripted_model::{Request, Script, Turn};
use serde_json::{Value, json};

use crate::support::agent_home::{Agent, AgentHome, color_question};
use crate::support::served;

const COPILOT: Agent = Agent {
    name: "copilot",
    title: "Copilot",
    folder: ".copilot",
    folder_var: "COPILOT_HOME",
    // Offline, on the scripted model.
    model_env: |model_url| {
        vec![
            ("COPILOT_OFFLINE", "true".into()),
            ("COPILOT_PROVIDER_BASE_URL", model_url.into()),
            ("COPILOT_PROVIDER_WIRE_API", "responses".into()),
            ("COPILOT_PROVIDER_API_KEY", "sk-fake".into()),
            ("COPILOT_MODEL", "fake-model".into()),
        ]
    },
};

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

/// Copilot's home with the person's settings and MCP servers in it.
struct Rig(AgentHome);

impl Rig {
    async fn start(script: Script, with_beckon: bool) -> Rig {
        let rig = Rig(AgentHome::start(&COPILOT, script, with_beckon).await);
        std::fs::write(rig.settings(), pretty(&their_settings())).unwrap();
        std::fs::write(rig.servers(), pretty(&their_servers())).unwrap();
        rig
    }

    fn settings(&self) -> PathBuf {
        self.agent_home().join("settings.json")
    }

    fn servers(&self) -> PathBuf {
        self.agent_home().join("mcp-config.json")
    }

    /// `copilot -p` on `prompt` in the project, started.
    fn prompt(&self, prompt: &str) -> tokio::process::Child {
        self.cli(&["-p", prompt, "--trust-folder", "--no-auto-update"]).spawn().unwrap()
    }
}

impl std::ops::Deref for Rig {
    type Target = AgentHome;

    fn deref(&self) -> &AgentHome {
        &self.0
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
    let got = rig.cli(&["mcp", "get", "beckon"]).output().await.unwrap();
    let got = served::text(&got.stdout);
    assert!(got.contains(&format!("Command: {beckon} mcp")) && got.contains("Source: User"), "{got}");
    let listed = rig.cli(&["mcp", "list"]).output().await.unwrap();
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
    let rig = Rig::start(calling("call_ask", "beckon-ask_user_question", color_question()), true).await;
    rig.setup(&[]).await;
    let started = Instant::now();
    let run = rig.prompt("Pick a banner color with me");
    // The result is the tool's JSON as it is.
    let asked = rig.answers_the_color_question(run, |result| result).await;
    assert!(asked["input"].get("approval").is_none(), "Beckon's own tool is not an approval: {asked}");
    eprintln!("the question and its answer took {:?}", started.elapsed());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_command_allowed_in_beckon_runs() {
    let rig = Rig::start(calling("call_sh", "bash", write_file("made.txt")), true).await;
    rig.setup(&[]).await;
    let started = Instant::now();
    rig.allows_the_command(rig.prompt("Write the file please"), "bash").await;
    eprintln!("the approval took {:?}", started.elapsed());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_command_denied_in_beckon_does_not_run_and_the_model_reads_why() {
    let rig = Rig::start(calling("call_sh", "bash", write_file("made.txt")), true).await;
    rig.setup(&[]).await;
    rig.denies_the_command(rig.prompt("Write the file please")).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn with_beckon_not_running_the_hook_steps_aside_and_copilot_decides_at_once() {
    let rig = Rig::start(calling("call_sh", "bash", write_file("made.txt")), false).await;
    rig.setup(&[]).await;
    // The hook itself, as Copilot runs it: nothing printed, exit 0, well within a second.
    let event = json!({"hookName": "permissionRequest", "sessionId": "s1", "cwd": rig.project(),
        "toolName": "bash", "toolInput": {"command": "ls"}, "permissionSuggestions": []});
    rig.hook_steps_aside(&event).await;

    // Copilot itself goes on to its own decision without waiting: in `-p` mode, with nobody at
    // its prompt, that is a refusal.
    let started = Instant::now();
    let result = rig.decides_without_beckon(rig.prompt("Write the file please")).await;
    assert!(result.contains("ermission denied"), "{result}");
    eprintln!("copilot decided without Beckon in {:?}", started.elapsed());
}

#[tokio::test(flavor = "multi_thread")]
async fn interrupting_copilot_while_beckon_asks_withdraws_the_approval_at_the_next_prompt() {
    let rig = Rig::start(calling("call_sh", "bash", write_file("made.txt")), true).await;
    rig.setup(&[]).await;
    let terminal = rig.terminal("cp", &rig.project(), &["--no-auto-update", "-i", "Write the file please"]);

    // Copilot asks once whether the person trusts the folder; they say yes.
    let deadline = Instant::now() + Duration::from_secs(30);
    while rig.model.requests().is_empty() {
        if terminal.screen().contains("Do you trust the files in this folder?") {
            terminal.keys(&["Enter"]);
        }
        assert!(Instant::now() < deadline, "Copilot did not ask the model; it shows:\n{}", terminal.screen());
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let approval = rig.pending().await;
    let id = approval["request_id"].as_str().unwrap().to_owned();
    // The person interrupts the turn in the terminal; Copilot kills the waiting hook outright.
    for _ in 0..2 {
        terminal.keys(&["Escape"]);
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    terminal.until_shown("cancelled by user", Duration::from_secs(20), "the turn was not interrupted").await;
    // Their next prompt in that session withdraws it.
    let view = rig.withdrawn_at_the_next_prompt(&id, &terminal).await;
    assert_eq!(view["outcome"]["reason"], "the person went on in Copilot CLI", "{view}");
}
