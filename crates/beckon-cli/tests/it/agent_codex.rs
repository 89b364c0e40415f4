//! The real Codex CLI (pinned in tests/agents), connected with `beckon setup codex` in a
//! temporary home, and a scripted Responses API model on loopback: Beckon's own question tool
//! reaches the person over MCP and the answer reaches the model; a command that needs
//! permission becomes a Beckon approval, and allowing runs it while denying tells the model
//! why; the hook setup writes is trusted as Codex records trust, so it runs without any flag
//! that skips the check; with Beckon not running the hook steps aside at once and Codex's own
//! reviewer decides. Setup keeps the person's file, Codex lists the server it wrote, and
//! `--remove` gives the file back byte for byte.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use beckon_testkit::scripted_model::{Request, Script, Turn};
use serde_json::{Value, json};

use crate::support::agent_home::{Agent, AgentHome, color_question};
use crate::support::served;

/// The person's own configuration, with comments and settings setup must keep.
const THEIRS: &str = "# Codex, as I like it\nmodel = \"fake-model\" # the scripted one\n\
model_provider = \"fake\"\ncheck_for_update_on_startup = false\n\n\
[model_providers.fake]\nname = \"Fake\"\nbase_url = \"MODEL_URL\"\nwire_api = \"responses\"\nenv_key = \"FAKE_API_KEY\"\n\n\
[features]\nplugins = false # no background clone\n\n[analytics]\nenabled = false\n";

const CODEX: Agent = Agent {
    name: "codex",
    title: "Codex",
    folder: ".codex",
    folder_var: "CODEX_HOME",
    model_env: |_| vec![("FAKE_API_KEY", "sk-fake".into())],
};

/// Codex's home with the person's configuration in it, pointing Codex at the scripted model.
struct Rig(AgentHome);

impl Rig {
    async fn start(script: Script, with_beckon: bool) -> Rig {
        let rig = Rig(AgentHome::start(&CODEX, script, with_beckon).await);
        std::fs::write(rig.config(), rig.theirs()).unwrap();
        rig
    }

    /// [`THEIRS`] pointing at this rig's model.
    fn theirs(&self) -> String {
        THEIRS.replace("MODEL_URL", &self.model.v1_url())
    }

    /// The project (its real path) and [`THEIRS`] with the project trusted, as Codex records
    /// a person's trust.
    fn theirs_trusting_the_project(&self) -> (PathBuf, String) {
        let project = self.project().canonicalize().unwrap();
        let theirs = format!("{}\n[projects.\"{}\"]\ntrust_level = \"trusted\"\n", self.theirs(), project.display());
        (project, theirs)
    }

    fn config(&self) -> PathBuf {
        self.agent_home().join("config.toml")
    }

    /// `codex exec --approve-for-me` on `prompt`, started.
    fn exec(&self, prompt: &str) -> tokio::process::Child {
        self.cli(&["exec", "--approve-for-me", "--skip-git-repo-check", prompt]).spawn().unwrap()
    }
}

impl std::ops::Deref for Rig {
    type Target = AgentHome;

    fn deref(&self) -> &AgentHome {
        &self.0
    }
}

/// A model that makes one call with `id` (unless the reviewer asks), then says "Done.".
fn calling(id: &'static str, name: &'static str, namespace: Option<&'static str>, arguments: Value) -> Script {
    Arc::new(move |request: &Request| {
        if request.reviewer {
            // Codex's automatic reviewer, when no hook decided: it refuses.
            return Turn::Text(
                json!({"outcome": "deny", "risk_level": "high",
                "rationale": "REVIEWER-SAYS-NO", "user_authorization": "unknown"})
                .to_string(),
            );
        }
        if request.tool_result(id).is_some() {
            Turn::Text("Done.".into())
        } else {
            Turn::Call {
                id: id.into(),
                name: name.into(),
                namespace: namespace.map(str::to_owned),
                arguments: arguments.clone(),
            }
        }
    })
}

/// A command Codex runs only with permission (outside its sandbox).
fn escalated(command: &str) -> Value {
    json!({"cmd": command, "sandbox_permissions": "require_escalated", "justification": "The file must be written"})
}

/// Codex's own view of its hooks (`codex app-server`, `hooks/list`): each hook's key and trust.
async fn listed_hooks(rig: &Rig) -> Vec<Value> {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let mut server = rig.cli(&["app-server"]).stdin(Stdio::piped()).spawn().unwrap();
    let mut stdin = server.stdin.take().unwrap();
    let cwd = rig.project().display().to_string();
    for message in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "test", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [cwd]}}),
    ] {
        stdin.write_all(format!("{message}\n").as_bytes()).await.unwrap();
    }
    let mut lines = BufReader::new(server.stdout.take().unwrap()).lines();
    let listed = tokio::time::timeout(Duration::from_secs(20), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            let message: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
            if message["id"] == 2 {
                return message;
            }
        }
        panic!("codex app-server ended without listing its hooks");
    })
    .await
    .expect("codex app-server did not list its hooks");
    let _ = server.start_kill();
    listed["result"]["data"][0]["hooks"].as_array().cloned().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn setup_keeps_the_persons_file_codex_reads_and_trusts_it_and_remove_gives_it_back() {
    let rig = Rig::start(calling("call_none", "exec_command", None, json!({})), false).await;
    let original = std::fs::read(rig.config()).unwrap();

    let dry = rig.setup(&["--dry-run"]).await;
    assert!(dry.contains("Would add Beckon to"), "{dry}");
    assert_eq!(std::fs::read(rig.config()).unwrap(), original);
    assert!(rig.setup(&["--check"]).await.contains("not connected"));

    let added = rig.setup(&[]).await;
    assert!(added.contains("Added Beckon to"), "{added}");
    let written = std::fs::read_to_string(rig.config()).unwrap();
    assert!(written.starts_with(&rig.theirs()), "the person's file comes first, unchanged:\n{written}");
    assert!(rig.setup(&["--check"]).await.contains("connected"));
    assert!(rig.setup(&[]).await.contains("Unchanged"), "a second setup changes nothing");
    assert_eq!(std::fs::read_to_string(rig.config()).unwrap(), written);

    // Codex reads what setup wrote: the server, and the hook as trusted.
    let beckon = Path::new(env!("CARGO_BIN_EXE_beckon")).canonicalize().unwrap();
    let got = rig.cli(&["mcp", "get", "beckon"]).output().await.unwrap();
    let got = served::text(&got.stdout);
    assert!(got.contains(&beckon.display().to_string()) && got.contains("mcp"), "{got}");
    let listed = rig.cli(&["mcp", "list"]).output().await.unwrap();
    assert!(served::text(&listed.stdout).contains("beckon"), "{}", served::text(&listed.stdout));
    let hooks = listed_hooks(&rig).await;
    let events: Vec<&str> = hooks.iter().filter_map(|hook| hook["eventName"].as_str()).collect();
    assert_eq!(events, ["permissionRequest", "userPromptSubmit"], "{hooks:?}");
    for hook in &hooks {
        assert_eq!(hook["command"], format!("{} hook codex", beckon.display()));
        assert_eq!(hook["trustStatus"], "trusted", "{hook}");
    }

    let removed = rig.setup(&["--remove"]).await;
    assert!(removed.contains("Removed Beckon from"), "{removed}");
    assert_eq!(std::fs::read(rig.config()).unwrap(), original, "byte for byte as before");
    assert!(rig.setup(&["--check"]).await.contains("not connected"));

    // A file that is not TOML is refused and left as it is.
    std::fs::write(rig.config(), "model = [unclosed\n").unwrap();
    let refused = served::output(&mut rig.setup_command(&[])).await;
    assert!(!refused.status.success());
    assert!(served::text(&refused.stderr).contains("not valid TOML"), "{}", served::text(&refused.stderr));
    assert_eq!(std::fs::read_to_string(rig.config()).unwrap(), "model = [unclosed\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_question_over_mcp_reaches_the_person_and_their_answer_the_model() {
    let rig = Rig::start(calling("call_ask", "ask_user_question", Some("mcp__beckon"), color_question()), true).await;
    rig.setup(&[]).await;
    let started = Instant::now();
    let run = rig.exec("Pick a banner color with me");
    // Codex puts a line before the tool's JSON.
    rig.answers_the_color_question(run, |result| result.find('{').map(|at| &result[at..]).unwrap_or(result)).await;
    eprintln!("the question and its answer took {:?}", started.elapsed());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_command_allowed_in_beckon_runs_through_the_hook_setup_trusted() {
    let rig = Rig::start(calling("call_sh", "exec_command", None, escalated("echo hi > made.txt")), true).await;
    rig.setup(&[]).await;
    let started = Instant::now();
    rig.allows_the_command(rig.exec("Write the file please"), "Bash").await;
    assert!(rig.model.requests().iter().all(|r| !r.reviewer), "the hook decided; Codex's reviewer was not asked");
    eprintln!("the approval took {:?}", started.elapsed());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_command_denied_in_beckon_does_not_run_and_the_model_reads_why() {
    let rig = Rig::start(calling("call_sh", "exec_command", None, escalated("echo hi > made.txt")), true).await;
    rig.setup(&[]).await;
    rig.denies_the_command(rig.exec("Write the file please")).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn with_beckon_not_running_the_hook_steps_aside_and_codex_decides_at_once() {
    let rig = Rig::start(calling("call_sh", "exec_command", None, escalated("echo hi > made.txt")), false).await;
    rig.setup(&[]).await;
    // The hook itself, as Codex runs it: nothing printed, exit 0, well within a second.
    let event = json!({"session_id": "s1", "cwd": rig.project(), "hook_event_name": "PermissionRequest",
        "tool_name": "Bash", "tool_input": {"command": "ls"}});
    rig.hook_steps_aside(&event).await;

    // Codex itself goes on to its own reviewer, which refuses here, without waiting.
    let started = Instant::now();
    let result = rig.decides_without_beckon(rig.exec("Write the file please")).await;
    assert!(rig.model.requests().iter().any(|r| r.reviewer), "Codex's reviewer decided");
    assert!(result.contains("REVIEWER-SAYS-NO"), "{result}");
    eprintln!("codex decided without Beckon in {:?}", started.elapsed());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_project_scope_writes_the_projects_file_and_trusts_its_hook_for_the_person() {
    let rig = Rig::start(calling("call_none", "exec_command", None, json!({})), false).await;
    // Codex reads a project's file only in a project the person trusts.
    let (project, theirs) = rig.theirs_trusting_the_project();
    std::fs::write(rig.config(), &theirs).unwrap();

    let added = rig.setup(&["--scope", "project"]).await;
    assert!(added.contains(&project.join(".codex/config.toml").display().to_string()), "{added}");
    assert!(rig.setup(&["--scope", "project", "--check"]).await.contains("connected"));
    let listed = rig.cli(&["mcp", "list"]).output().await.unwrap();
    assert!(served::text(&listed.stdout).contains("beckon"), "{}", served::text(&listed.stdout));
    let hooks = listed_hooks(&rig).await;
    assert_eq!(hooks.len(), 2, "{hooks:?}");
    for hook in &hooks {
        assert_eq!(hook["source"], "project", "{hook}");
        assert_eq!(hook["trustStatus"], "trusted", "{hook}");
    }

    let removed = rig.setup(&["--scope", "project", "--remove"]).await;
    assert!(removed.contains("Removed Beckon from"), "{removed}");
    assert!(!project.join(".codex/config.toml").exists());
    assert_eq!(std::fs::read_to_string(rig.config()).unwrap(), theirs, "the person's file byte for byte as before");
}

#[tokio::test(flavor = "multi_thread")]
async fn interrupting_codex_while_beckon_asks_withdraws_the_approval_at_the_next_prompt() {
    let rig = Rig::start(calling("call_sh", "exec_command", None, escalated("echo hi > made.txt")), true).await;
    let (project, theirs) = rig.theirs_trusting_the_project();
    std::fs::write(rig.config(), theirs).unwrap();
    rig.setup(&[]).await;
    let args = ["--no-daemon", "--no-alt-screen", "-a", "on-request", "-s", "workspace-write", "Write the file please"];
    let terminal = rig.terminal("cx", &project, &args);

    let approval = rig.pending().await;
    let id = approval["request_id"].as_str().unwrap().to_owned();
    // The person interrupts the turn in the terminal; Codex kills the waiting hook outright.
    terminal.keys(&["Escape"]);
    terminal.until_shown("interrupted", Duration::from_secs(20), "the turn was not interrupted").await;
    // Their next prompt in that session withdraws it.
    let view = rig.withdrawn_at_the_next_prompt(&id, &terminal).await;
    assert_eq!(view["outcome"]["reason"], "the person went on in Codex", "{view}");
}
