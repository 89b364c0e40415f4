//! An agent's real CLI (pinned in tests/agents) in a temporary home of its own: its
//! configuration folder, a project, Beckon's data folder where `beckon` finds it from that home
//! (with `beckon serve` running there, or not), and a scripted model on loopback. The agent's
//! suite says what differs: its name, its folder, and the environment its CLI runs with. The
//! CLI runs headless, or interactive in a terminal of the test's own (tmux).
//!
//! The scenarios every agent plays are here too, each checking what all agents must do alike:
//! Beckon's own question answered by the person, a command allowed or denied in Beckon, the
//! hook stepping aside with no Beckon running, and an approval withdrawn when the person goes
//! on in the agent's terminal. Each suite starts its agent's run and checks what differs.

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use beckon_gateway::Discovery;
use beckon_testkit::scripted_model::{Script, ScriptedModel};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::process::{Child, Command};

use super::{questions, served};

/// How long an approval may take to leave `pending` once the person went on.
const SETTLING: Duration = Duration::from_secs(20);

/// How long the agent's run may take once the person answered.
const ANSWERED_RUN: Duration = Duration::from_secs(30);

/// The arguments of Beckon's `ask_user_question` for one question: the banner's color.
pub fn color_question() -> Value {
    json!({"questions": [{"question": "Which color should the banner be?", "header": "Color",
        "multiSelect": false, "options": [{"label": "Red", "description": "Warm"}, {"label": "Blue", "description": "Calm"}]}],
        "wait_seconds": 60})
}

/// What differs between agents' CLIs, as their suites run them.
pub struct Agent {
    /// As `beckon setup`, `beckon hook` and tests/agents name it: `codex`.
    pub name: &'static str,
    /// As a person names it: `Codex`.
    pub title: &'static str,
    /// Its configuration folder in the home: `.codex`.
    pub folder: &'static str,
    /// The variable that names that folder: `CODEX_HOME`.
    pub folder_var: &'static str,
    /// The variables that point its CLI at the scripted model, given the model's `/v1` URL.
    pub model_env: fn(&str) -> Vec<(&'static str, String)>,
}

impl Agent {
    /// Its CLI, installed by `npm ci` in tests/agents.
    pub fn program(&self) -> PathBuf {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/agents/node_modules/.bin").join(self.name);
        assert!(path.exists(), "no {} CLI at {}: run `npm ci` in tests/agents", self.title, path.display());
        path
    }
}

/// A temporary home for `agent`, outside the system's temporary folder (where Codex will not
/// put its sandbox helper).
pub struct AgentHome {
    agent: &'static Agent,
    root: tempfile::TempDir,
    serve: Option<Child>,
    gateway: Option<Discovery>,
    /// The client the test reads and answers Beckon's questions with.
    pub http: reqwest::Client,
    /// The model the agent's CLI talks to.
    pub model: ScriptedModel,
}

impl AgentHome {
    /// The home, with `beckon serve` in it when `with_beckon`, and a model playing `script`.
    pub async fn start(agent: &'static Agent, script: Script, with_beckon: bool) -> AgentHome {
        let root = tempfile::Builder::new()
            .prefix(&format!("{}-", agent.name))
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .unwrap();
        let model = ScriptedModel::start(script).await;
        std::fs::create_dir_all(root.path().join("home").join(agent.folder)).unwrap();
        std::fs::create_dir_all(root.path().join("shop")).unwrap();
        let (serve, gateway) = if with_beckon {
            // Where `beckon` finds it from this home: agents start MCP servers with a filtered
            // environment, so `beckon mcp` finds Beckon by HOME, as a person's would.
            let data = root.path().join("home/.local/share/dev.beckon.desktop");
            let (serve, gateway) = served::serve_approving(&data).await;
            (Some(serve), Some(gateway))
        } else {
            (None, None)
        };
        AgentHome { agent, root, serve, gateway, http: reqwest::Client::new(), model }
    }

    pub fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }

    /// The agent's configuration folder in the home.
    pub fn agent_home(&self) -> PathBuf {
        self.home().join(self.agent.folder)
    }

    pub fn project(&self) -> PathBuf {
        self.root.path().join("shop")
    }

    /// `beckon setup <agent> <args>` in the project, not yet run.
    pub fn setup_command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_beckon"));
        command
            .args(["setup", self.agent.name])
            .args(args)
            .current_dir(self.project())
            .env("HOME", self.home())
            .env(self.agent.folder_var, self.agent_home())
            .stdin(Stdio::null());
        command
    }

    /// `beckon setup <agent> <args>` as the person runs it; its output.
    pub async fn setup(&self, args: &[&str]) -> String {
        let output = served::output(&mut self.setup_command(args)).await;
        let stdout = served::text(&output.stdout);
        // `--check` also reaches Beckon, and fails where none runs for this home.
        assert!(output.status.success() || args.contains(&"--check"), "{stdout}{}", served::text(&output.stderr));
        stdout
    }

    /// What the agent's CLI runs with: this home and model, and nothing else.
    fn env(&self) -> Vec<(&'static str, String)> {
        let mut env = vec![
            ("PATH", std::env::var("PATH").unwrap_or_default()),
            ("HOME", self.home().display().to_string()),
            (self.agent.folder_var, self.agent_home().display().to_string()),
        ];
        env.extend((self.agent.model_env)(&self.model.v1_url()));
        env
    }

    /// The agent's real CLI with `args` in the project, headless.
    pub fn cli(&self, args: &[&str]) -> Command {
        let mut command = Command::new(self.agent.program());
        command
            .args(args)
            .current_dir(self.project())
            .env_clear()
            .envs(self.env())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        command
    }

    /// Waits for `child` (the agent's CLI) to end, a limit on the whole run.
    pub async fn finish(&self, child: Child, limit: Duration) -> Output {
        match tokio::time::timeout(limit, child.wait_with_output()).await {
            Ok(output) => output.unwrap(),
            Err(_) => panic!("{} did not finish within {limit:?}", self.agent.name),
        }
    }

    /// `beckon hook <agent>` as the agent runs it, with `event` on its standard input and
    /// nothing pointing it at a Beckon but this home; its output, within five seconds.
    pub async fn hook(&self, event: &Value) -> Output {
        let mut hook = Command::new(env!("CARGO_BIN_EXE_beckon"))
            .args(["hook", self.agent.name])
            .env("HOME", self.home())
            .env_remove("BECKON_DATA_DIR")
            .env_remove("BECKON_URL")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = hook.stdin.take().unwrap();
        stdin.write_all(event.to_string().as_bytes()).await.unwrap();
        drop(stdin);
        tokio::time::timeout(Duration::from_secs(5), hook.wait_with_output()).await.unwrap().unwrap()
    }

    /// The agent's real CLI with `args`, interactive in a terminal `session` opened in `dir`.
    pub fn terminal(&self, session: &'static str, dir: &Path, args: &[&str]) -> Terminal {
        let socket = format!("beckon-{}-{}", self.agent.name, std::process::id());
        let mut env: Vec<String> = self.env().into_iter().map(|(name, value)| format!("{name}={value}")).collect();
        env.push("TERM=xterm-256color".into());
        let program = self.agent.program().display().to_string();
        let dir = dir.display().to_string();
        let mut command = vec!["new-session", "-d", "-s", session, "-x", "160", "-y", "45", "-c", &dir, "env", "-i"];
        command.extend(env.iter().map(String::as_str));
        command.push(&program);
        command.extend(args);
        let terminal = Terminal { socket, session };
        assert!(terminal.tmux(&command).status.success(), "tmux did not start");
        terminal
    }

    pub fn gateway(&self) -> &Discovery {
        self.gateway.as_ref().expect("this rig runs Beckon")
    }

    /// The first pending question in Beckon, once there is one.
    pub async fn pending(&self) -> Value {
        let url = format!("{}/v1/questions?status=pending", self.gateway().url);
        questions::first_listed(&self.http, &url, &self.gateway().token, Duration::from_secs(30), |_| {
            format!("nothing reached Beckon; the model saw {:?}", self.bodies())
        })
        .await
    }

    /// The question `id` as Beckon shows it now.
    pub async fn question(&self, id: &str) -> Value {
        let url = format!("{}/v1/questions/{id}", self.gateway().url);
        self.http.get(&url).bearer_auth(&self.gateway().token).send().await.unwrap().json().await.unwrap()
    }

    /// The question `id` once it is no longer pending; the test fails after a while, with what
    /// `terminal` shows.
    pub async fn settled(&self, id: &str, terminal: &Terminal) -> Value {
        let deadline = Instant::now() + SETTLING;
        loop {
            let view = self.question(id).await;
            if view["status"] != "pending" {
                return view;
            }
            let title = self.agent.title;
            assert!(Instant::now() < deadline, "the approval stayed pending; {title} shows:\n{}", terminal.screen());
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    pub async fn answer(&self, id: &str, body: Value) {
        let url = format!("{}/v1/questions/{id}/answer", self.gateway().url);
        let response = self.http.post(url).bearer_auth(&self.gateway().token).json(&body).send().await.unwrap();
        assert!(response.status().is_success(), "{}", response.status());
    }

    /// What the agent's CLI sent the model, each request's body.
    pub fn bodies(&self) -> Vec<Value> {
        self.model.requests().into_iter().map(|r| r.body).collect()
    }
}

/// The scenarios, on a home with Beckon running and set up for the agent.
impl AgentHome {
    /// `run` (the agent's CLI on a prompt) has the model call Beckon's question tool with
    /// [`color_question`] as `call_ask`; it reaches Beckon from the agent, the person answers
    /// "Blue", the run ends well, and the model reads the answer in the call's result (the JSON
    /// `json` finds in its text). The question as Beckon showed it.
    pub async fn answers_the_color_question(&self, run: Child, json: fn(&str) -> &str) -> Value {
        let asked = self.pending().await;
        assert_eq!(asked["input"]["questions"][0]["question"], "Which color should the banner be?", "{asked}");
        assert_eq!(asked["agent"], self.agent.name, "the name its approvals carry, not its MCP client's");
        self.answer(asked["request_id"].as_str().unwrap(), json!({"answer": "Blue"})).await;
        let output = self.finish(run, ANSWERED_RUN).await;
        assert!(output.status.success(), "{}", served::text(&output.stderr));
        let result = self.model.tool_result("call_ask").expect("the model got the tool's result");
        let result: Value = serde_json::from_str(json(&result)).unwrap_or_else(|_| panic!("not JSON: {result}"));
        assert_eq!(result["outcome"], "answered");
        assert_eq!(result["answers"], json!({"Which color should the banner be?": "Blue"}));
        asked
    }

    /// `run` has the model call the agent's shell tool (`tool`) on `echo hi > made.txt`; its
    /// approval reaches Beckon naming the agent, the tool, the command and the project; the
    /// person allows it; the run ends well and the command ran.
    pub async fn allows_the_command(&self, run: Child, tool: &str) {
        let approval = self.pending().await;
        assert_eq!(approval["agent"], self.agent.name);
        assert_eq!(approval["input"]["approval"]["tool_name"], tool);
        assert_eq!(approval["input"]["approval"]["input"]["command"], "echo hi > made.txt");
        assert_eq!(approval["input"]["approval"]["project"], self.project().display().to_string());
        self.answer(approval["request_id"].as_str().unwrap(), json!({"answer": "Allow"})).await;
        let output = self.finish(run, ANSWERED_RUN).await;
        assert!(output.status.success(), "{}", served::text(&output.stderr));
        assert_eq!(std::fs::read_to_string(self.project().join("made.txt")).unwrap(), "hi\n");
    }

    /// `run` has the model call the agent's shell tool on `echo hi > made.txt` as `call_sh`; the
    /// person denies it in Beckon with a comment; the run ends well, the command did not run,
    /// and the model reads the comment in the call's result.
    pub async fn denies_the_command(&self, run: Child) {
        let approval = self.pending().await;
        let answer = json!({"answers": [{"selected": ["Deny"], "comment": "Write it under build/ instead"}]});
        self.answer(approval["request_id"].as_str().unwrap(), answer).await;
        let output = self.finish(run, ANSWERED_RUN).await;
        assert!(output.status.success(), "{}", served::text(&output.stderr));
        let result = self.model.tool_result("call_sh").expect("the model got the call's result");
        assert!(result.contains("Write it under build/ instead"), "{result}");
        assert!(!self.project().join("made.txt").exists());
    }

    /// The agent's hook on `event` (a permission request) with no Beckon running for this home:
    /// nothing printed, exit 0, well within a second.
    pub async fn hook_steps_aside(&self, event: &Value) {
        let started = Instant::now();
        let output = self.hook(event).await;
        let took = started.elapsed();
        assert!(output.status.success());
        assert!(output.stdout.is_empty(), "{}", served::text(&output.stdout));
        assert!(took < Duration::from_secs(1), "the hook took {took:?} with no Beckon running");
    }

    /// `run` has the model call the agent's shell tool on `echo hi > made.txt` as `call_sh`
    /// with no Beckon running: the agent decides by itself, without waiting; the run ends well
    /// and the command did not run. What the model read in the call's result.
    pub async fn decides_without_beckon(&self, run: Child) -> String {
        let output = self.finish(run, Duration::from_secs(20)).await;
        assert!(output.status.success(), "{}", served::text(&output.stderr));
        let result = self.model.tool_result("call_sh").expect("the model got the call's result");
        assert!(!self.project().join("made.txt").exists());
        result
    }

    /// The approval `id`, still pending after the person interrupted the agent's turn in
    /// `terminal`, is withdrawn when they type their next prompt there: cancelled, for the
    /// reason Beckon gives. The command did not run.
    pub async fn withdrawn_at_the_next_prompt(&self, id: &str, terminal: &Terminal) -> Value {
        let view = self.question(id).await;
        assert_eq!(view["status"], "pending", "nothing withdrew it yet: {view}");
        terminal.type_prompt("Never mind").await;
        let view = self.settled(id, terminal).await;
        assert_eq!(view["status"], "cancelled", "{view}");
        assert!(!self.project().join("made.txt").exists());
        view
    }
}

impl Drop for AgentHome {
    fn drop(&mut self) {
        if let Some(serve) = &mut self.serve {
            let _ = serve.start_kill();
        }
    }
}

/// A tmux session on a tmux server of the test's own, ended however the test ends.
pub struct Terminal {
    socket: String,
    session: &'static str,
}

impl Terminal {
    fn tmux(&self, args: &[&str]) -> std::process::Output {
        std::process::Command::new("tmux").arg("-L").arg(&self.socket).args(args).stdin(Stdio::null()).output().unwrap()
    }

    /// What the terminal shows now.
    pub fn screen(&self) -> String {
        served::text(&self.tmux(&["capture-pane", "-p", "-t", self.session]).stdout)
    }

    /// Presses `keys` (tmux's names: `Escape`, `Enter`).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", self.session];
        args.extend(keys);
        assert!(self.tmux(&args).status.success(), "tmux did not send {keys:?}");
    }

    /// Types `text` as the next prompt, then a moment later presses Enter.
    pub async fn type_prompt(&self, text: &str) {
        self.keys(&["-l", text]);
        tokio::time::sleep(Duration::from_millis(300)).await;
        self.keys(&["Enter"]);
    }

    /// Waits until the terminal shows `text`; the test fails after `limit` saying `otherwise`.
    pub async fn until_shown(&self, text: &str, limit: Duration, otherwise: &str) {
        let deadline = Instant::now() + limit;
        loop {
            let screen = self.screen();
            if screen.contains(text) {
                return;
            }
            assert!(Instant::now() < deadline, "{otherwise}:\n{screen}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        self.tmux(&["kill-server"]);
    }
}
