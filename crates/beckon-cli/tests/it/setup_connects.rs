//! `beckon setup <agent>` records where the agent finds Beckon, and `--check` proves it by
//! reaching it, against a real `beckon serve` on loopback:
//!
//! - given a URL and an ask-only token (`BECKON_URL`, `BECKON_TOKEN`), setup writes them to the
//!   connection file (mode 0600, the token in no agent's file), and for every agent the hook and
//!   the MCP server its files name, run as the agent runs them (the command through `sh -c`, or
//!   the plugin's program and arguments, with nothing but `HOME` and `PATH`), reach that Beckon:
//!   the prompt or question shows there under the agent's name;
//! - `--check` says "reachable" then, and fails (exit 1) naming why once the token is revoked,
//!   when another token is given, and when Beckon is down;
//! - for a Beckon on a data folder of its own (`BECKON_DATA_DIR`), the hook and the server are
//!   told that folder, and reach it with no `BECKON_DATA_DIR` in their environment.

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};

use crate::support::served;

/// A person's home with a project, whose agents `beckon setup` connects.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("shop")).unwrap();
        Home { dir }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    fn project(&self) -> PathBuf {
        self.path("shop")
    }

    /// `beckon setup <args>` in the project, with `env` and none of the variables that would
    /// move the agents' files or Beckon's.
    async fn setup(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut command = Command::new(env!("CARGO_BIN_EXE_beckon"));
        command.arg("setup").args(args).current_dir(self.project()).env("HOME", self.dir.path());
        for name in [
            "BECKON_DATA_DIR",
            "BECKON_URL",
            "BECKON_TOKEN",
            "BECKON_CONNECTION_FILE",
            "XDG_DATA_HOME",
            "XDG_CONFIG_HOME",
            "CLAUDE_CONFIG_DIR",
            "CODEX_HOME",
            "COPILOT_HOME",
            "GEMINI_CLI_HOME",
        ] {
            command.env_remove(name);
        }
        command.envs(env.iter().copied()).stdin(Stdio::null());
        served::output(&mut command).await
    }

    /// The same, which must succeed; what it printed.
    async fn setup_ok(&self, args: &[&str], env: &[(&str, &str)]) -> String {
        let output = self.setup(args, env).await;
        let stdout = served::text(&output.stdout);
        assert!(output.status.success(), "setup {args:?}: {stdout}{}", served::text(&output.stderr));
        stdout
    }

    /// `beckon setup <agent> --check`: its exit code and what it printed.
    async fn check(&self, agent: &str, env: &[(&str, &str)]) -> (i32, String) {
        let output = self.setup(&[agent, "--check"], env).await;
        (output.status.code().unwrap(), served::text(&output.stdout) + &served::text(&output.stderr))
    }

    /// A program started as an agent starts its hooks and servers: its own environment is only
    /// the home folder and `PATH`.
    fn agent_runs(&self, program: &str, args: &[String]) -> Command {
        let mut command = Command::new(program);
        command
            .args(args)
            .current_dir(self.project())
            .env_clear()
            .env("HOME", self.dir.path())
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        command
    }

    /// The hook command `command` run through `sh -c`, with `event` on its stdin.
    async fn hook(&self, command: &str, event: &Value) -> Child {
        self.start(self.agent_runs("sh", &["-c".to_owned(), command.to_owned()]), event).await
    }

    async fn start(&self, mut command: Command, event: &Value) -> Child {
        let mut child = command.spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(event.to_string().as_bytes()).await.unwrap();
        drop(stdin);
        child
    }
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The value of the first `key = "…"` line of a TOML text that `has` is in, or after `after`.
fn toml_line(text: &str, after: &str, key: &str, has: &str) -> String {
    let rest = &text[text.find(after).unwrap_or_else(|| panic!("no {after} in:\n{text}"))..];
    let line = rest
        .lines()
        .find(|line| line.starts_with(&format!("{key} = ")) && line.contains(has))
        .unwrap_or_else(|| panic!("no {key} with {has} after {after}:\n{text}"));
    line[key.len() + 3..].to_owned()
}

/// A basic TOML string or array of strings as the test's files hold them, read as JSON.
fn toml_value(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| panic!("not a simple TOML value: {text}"))
}

/// An agent, as the test connects and drives it.
struct Agent {
    /// Its name for `beckon setup`, and the name Beckon shows.
    name: &'static str,
    /// The name it gives itself as an MCP client.
    mcp_client: &'static str,
}

const AGENTS: [Agent; 5] = [
    Agent { name: "claude-code", mcp_client: "claude-code" },
    Agent { name: "codex", mcp_client: "codex-mcp-client" },
    Agent { name: "copilot", mcp_client: "copilot-cli" },
    Agent { name: "opencode", mcp_client: "opencode" },
    Agent { name: "gemini", mcp_client: "gemini-cli-mcp-client" },
];

/// The hook the agent's files make it run for a permission prompt, started as the agent starts
/// it with the event it sends.
async fn start_hook(home: &Home, agent: &str) -> Child {
    let project = home.project().display().to_string();
    match agent {
        "claude-code" => {
            let settings = read_json(&home.path(".claude/settings.json"));
            let command = settings["hooks"]["PermissionRequest"][0]["hooks"][0]["command"].as_str().unwrap().to_owned();
            let event = json!({"session_id": "cc-1", "cwd": project, "permission_mode": "default",
                "hook_event_name": "PermissionRequest", "tool_name": "Bash",
                "tool_input": {"command": "ls", "description": "List files"}});
            home.hook(&command, &event).await
        }
        "codex" => {
            let config = std::fs::read_to_string(home.path(".codex/config.toml")).unwrap();
            let command = toml_value(&toml_line(&config, "[[hooks.PermissionRequest.hooks]]", "command", "hook codex"));
            let event = json!({"session_id": "01a21450-8e1f-7131-b8e6-f2770be8ef01", "turn_id": "t-1",
                "transcript_path": "/dev/null", "cwd": project, "hook_event_name": "PermissionRequest",
                "model": "gpt-5", "permission_mode": "default", "tool_name": "Bash",
                "tool_input": {"command": "ls", "description": "List files"}});
            home.hook(command.as_str().unwrap(), &event).await
        }
        "copilot" => {
            let settings = read_json(&home.path(".copilot/settings.json"));
            let command = settings["hooks"]["permissionRequest"][0]["bash"].as_str().unwrap().to_owned();
            let event = json!({"hookName": "permissionRequest", "sessionId": "cp-1", "timestamp": 1,
                "cwd": project, "toolName": "bash", "toolInput": {"command": "ls"}, "permissionSuggestions": []});
            home.hook(&command, &event).await
        }
        "opencode" => {
            // The plugin spawns its program with its arguments, no shell between.
            let plugin = std::fs::read_to_string(home.path(".config/opencode/plugins/beckon.js")).unwrap();
            let literal = |name: &str| -> Value {
                let line = plugin.lines().find(|line| line.starts_with(&format!("const {name} = "))).unwrap();
                serde_json::from_str(line[name.len() + 9..].trim_end_matches(';')).unwrap()
            };
            let (program, args) = (literal("PROGRAM"), literal("ARGS"));
            let args: Vec<String> = args.as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_owned()).collect();
            let event = json!({"id": "evt_1", "type": "permission.asked", "properties": {"id": "per_1",
                "sessionID": "ses_1", "permission": "bash", "patterns": ["ls"], "metadata": {"command": "ls"},
                "always": ["ls *"], "tool": {"messageID": "msg_1", "callID": "call_1"}}, "directory": project});
            home.start(home.agent_runs(program.as_str().unwrap(), &args), &event).await
        }
        "gemini" => {
            let settings = read_json(&home.path(".gemini/settings.json"));
            let command = settings["hooks"]["Notification"][0]["hooks"][0]["command"].as_str().unwrap().to_owned();
            let event = json!({"session_id": "gm-1", "cwd": project, "hook_event_name": "Notification",
                "notification_type": "ToolPermission", "message": "Tool Confirm Shell Command requires execution",
                "details": {"type": "exec", "title": "Confirm Shell Command", "command": "ls", "rootCommand": "ls"}});
            home.hook(&command, &event).await
        }
        other => panic!("no hook for {other}"),
    }
}

/// The MCP server the agent's files name: its program and arguments.
fn mcp_server(home: &Home, agent: &str) -> (String, Vec<String>) {
    let strings = |value: &Value| -> Vec<String> {
        value.as_array().unwrap().iter().map(|word| word.as_str().unwrap().to_owned()).collect()
    };
    let (program, args) = match agent {
        "claude-code" => {
            let entry = read_json(&home.path(".claude.json"))["mcpServers"]["beckon"].clone();
            (entry["command"].clone(), strings(&entry["args"]))
        }
        "codex" => {
            let config = std::fs::read_to_string(home.path(".codex/config.toml")).unwrap();
            let program = toml_value(&toml_line(&config, "[mcp_servers.beckon]", "command", ""));
            (program, strings(&toml_value(&toml_line(&config, "[mcp_servers.beckon]", "args", ""))))
        }
        "copilot" => {
            let entry = read_json(&home.path(".copilot/mcp-config.json"))["mcpServers"]["beckon"].clone();
            (entry["command"].clone(), strings(&entry["args"]))
        }
        "opencode" => {
            let command = strings(&read_json(&home.path(".config/opencode/opencode.json"))["mcp"]["beckon"]["command"]);
            (json!(command[0]), command[1..].to_vec())
        }
        "gemini" => {
            let entry = read_json(&home.path(".gemini/settings.json"))["mcpServers"]["beckon"].clone();
            (entry["command"].clone(), strings(&entry["args"]))
        }
        other => panic!("no server for {other}"),
    };
    (program.as_str().unwrap().to_owned(), args)
}

/// The first pending question of `agent`'s, once there is one.
async fn pending_of(served: &served::Served, agent: &str) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let pending = served.client.pending().await.unwrap();
        if let Some(found) = pending.iter().find(|question| question.agent == agent) {
            return serde_json::to_value(found).unwrap();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "nothing of {agent}'s reached Beckon; pending: {:?}",
            pending.iter().map(|q| q.agent.clone()).collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The gateway's notices, once `agent` has one.
async fn notice_of(served: &served::Served, agent: &str) -> Value {
    let http = reqwest::Client::new();
    let endpoint = served.client.endpoint();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let listed: Value = http
            .get(format!("{}/v1/notices", endpoint.url))
            .bearer_auth(&endpoint.token)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if let Some(found) = listed["notices"].as_array().unwrap().iter().find(|notice| notice["agent"] == agent) {
            return found.clone();
        }
        assert!(tokio::time::Instant::now() < deadline, "no notice of {agent}'s reached Beckon: {listed}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `child` run to its end, which must be a success.
async fn finished(child: Child) -> Output {
    let output = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output()).await.unwrap().unwrap();
    assert!(output.status.success(), "{}", served::text(&output.stderr));
    output
}

/// Asks Beckon's `ask_user_question` through the MCP server `program args`, started as an agent
/// starts it and naming itself `client`; declines the question in Beckon and returns what the
/// tool gave back, once it is seen under `agent`'s name.
async fn ask_over_mcp(
    home: &Home,
    served: &served::Served,
    (program, args): (String, Vec<String>),
    client: &str,
    agent: &str,
) -> Value {
    let mut server = home.agent_runs(&program, &args).spawn().unwrap();
    let mut stdin = server.stdin.take().unwrap();
    let mut lines = BufReader::new(server.stdout.take().unwrap()).lines();
    let ask = json!({"questions": [{"question": format!("Which colour, {agent}?"), "header": "Colour",
        "multiSelect": false, "options": [{"label": "Red"}, {"label": "Blue"}]}], "wait_seconds": 30});
    for message in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
            "capabilities": {}, "clientInfo": {"name": client, "version": "1.0.0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ask_user_question", "arguments": ask}}),
    ] {
        stdin.write_all(format!("{message}\n").as_bytes()).await.unwrap();
    }
    let question = pending_of(served, agent).await;
    assert_eq!(question["input"]["questions"][0]["question"], format!("Which colour, {agent}?"));
    served.client.decline(question["request_id"].as_str().unwrap(), Some("not now")).await.unwrap();
    let answered = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == 2 {
                return message;
            }
        }
        panic!("the MCP server ended without answering");
    })
    .await
    .unwrap();
    drop(stdin);
    let _ = server.wait().await;
    answered
}

#[tokio::test(flavor = "multi_thread")]
async fn every_agent_given_a_url_and_token_reaches_that_beckon_through_its_hook_and_its_server() {
    let served = served::Served::start("setup-test").await;
    let made = served::output(served.beckon().args(["token", "create", "--name", "devbox", "--ask-only"])).await;
    assert!(made.status.success(), "{}", served::text(&made.stderr));
    let token = served::text(&made.stdout).trim().to_owned();
    let url = served.client.endpoint().url.clone();
    let home = Home::new();
    let given = [("BECKON_URL", url.as_str()), ("BECKON_TOKEN", token.as_str())];

    for agent in &AGENTS {
        let said = home.setup_ok(&[agent.name], &given).await;
        assert!(said.contains(&format!("Beckon answers at {url}")), "{said}");
        let (code, checked) = home.check(agent.name, &[]).await;
        assert_eq!(code, 0, "{checked}");
        assert!(
            checked.contains(": connected") && checked.contains(&format!("Beckon: reachable at {url}")),
            "{checked}"
        );
    }

    // The URL and token are in the connection file, readable by its owner only, and nowhere else.
    let file = home.path(".local/share/dev.beckon.desktop/remote.json");
    assert_eq!(read_json(&file), json!({"url": url, "token": token}));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
    }
    for entry in walk(home.dir.path()) {
        if entry != file {
            let text = String::from_utf8_lossy(&std::fs::read(&entry).unwrap()).into_owned();
            assert!(!text.contains(&token), "the token is in {}", entry.display());
        }
    }

    for agent in &AGENTS {
        let hook = start_hook(&home, agent.name).await;
        if agent.name == "gemini" {
            // Gemini's permission prompts reach Beckon as notices.
            let notice = notice_of(&served, "gemini").await;
            assert!(notice["message"].as_str().unwrap().contains("ls"), "{notice}");
        } else {
            let approval = pending_of(&served, agent.name).await;
            assert_eq!(approval["input"]["approval"]["input"]["command"], "ls", "{approval}");
            served.client.decline(approval["request_id"].as_str().unwrap(), None).await.unwrap();
        }
        finished(hook).await;

        let answered = ask_over_mcp(&home, &served, mcp_server(&home, agent.name), agent.mcp_client, agent.name).await;
        let result = answered["result"]["content"][0]["text"].as_str().unwrap_or_default().to_owned();
        assert!(result.contains("declined"), "{}: {answered}", agent.name);
    }
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() { files.extend(walk(&path)) } else { files.push(path) }
    }
    files
}

#[tokio::test(flavor = "multi_thread")]
async fn check_fails_naming_why_when_the_token_is_wrong_or_beckon_is_down() {
    let mut served = served::Served::start("setup-test").await;
    let made = served::output(served.beckon().args(["token", "create", "--name", "devbox", "--ask-only"])).await;
    let token = served::text(&made.stdout).trim().to_owned();
    let url = served.client.endpoint().url.clone();
    let home = Home::new();
    home.setup_ok(&["claude-code"], &[("BECKON_URL", &url), ("BECKON_TOKEN", &token)]).await;
    let (code, said) = home.check("claude-code", &[]).await;
    assert_eq!(code, 0, "{said}");

    // Another token given than the one stored: out of date.
    let other = [("BECKON_URL", url.as_str()), ("BECKON_TOKEN", "bkn_ask_0000000000000000000000000000")];
    let (code, said) = home.check("claude-code", &other).await;
    assert_eq!(code, 1, "{said}");
    assert!(said.contains("out of date") && said.contains("holds another token"), "{said}");

    // The token revoked: Beckon answers, but not to it.
    let revoked = served::output(served.beckon().args(["token", "revoke", "devbox"])).await;
    assert!(revoked.status.success(), "{}", served::text(&revoked.stderr));
    let (code, said) = home.check("claude-code", &[]).await;
    assert_eq!(code, 1, "{said}");
    assert!(said.contains("Beckon: not reachable") && said.contains("token"), "{said}");

    // Beckon down.
    served.serve.kill().await.unwrap();
    let (code, said) = home.check("claude-code", &[]).await;
    assert_eq!(code, 1, "{said}");
    assert!(said.contains(&format!("Beckon: not reachable: nothing answers at {url}")), "{said}");

    // Half a connection is refused before anything is written.
    let output = home.setup(&["codex"], &[("BECKON_URL", &url)]).await;
    assert!(!output.status.success());
    assert!(served::text(&output.stderr).contains("a URL without a token"), "{}", served::text(&output.stderr));
    assert!(!home.path(".codex").exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_beckon_on_a_data_folder_of_its_own_is_found_by_the_hook_and_the_server_setup_wrote() {
    let served = served::Served::start("setup-test").await;
    let data = served.dir.path().display().to_string();
    let home = Home::new();
    let said = home.setup_ok(&["claude-code"], &[("BECKON_DATA_DIR", &data)]).await;
    assert!(said.contains("Added Beckon to"), "{said}");
    let settings = read_json(&home.path(".claude/settings.json"));
    let command = settings["hooks"]["PermissionRequest"][0]["hooks"][0]["command"].as_str().unwrap().to_owned();
    assert!(command.contains(&format!(" --data-dir {data} hook claude-code")), "{command}");
    let (program, args) = mcp_server(&home, "claude-code");
    assert_eq!(args, ["--data-dir", data.as_str(), "mcp"]);

    let (code, checked) = home.check("claude-code", &[("BECKON_DATA_DIR", &data)]).await;
    assert_eq!(code, 0, "{checked}");
    assert!(checked.contains("Beckon: reachable at"), "{checked}");
    let (code, checked) = home.check("claude-code", &[]).await;
    assert_eq!(code, 1, "{checked}");
    assert!(checked.contains("out of date"), "the default folder's entries would differ: {checked}");

    // With nothing but HOME, as Claude Code runs them, both find that Beckon.
    let hook = start_hook(&home, "claude-code").await;
    let approval = pending_of(&served, "claude-code").await;
    served.client.decline(approval["request_id"].as_str().unwrap(), None).await.unwrap();
    finished(hook).await;
    let answered = ask_over_mcp(&home, &served, (program, args), "claude-code", "claude-code").await;
    assert!(answered["result"]["content"][0]["text"].as_str().unwrap().contains("declined"), "{answered}");

    assert!(home.setup_ok(&["claude-code", "--remove"], &[("BECKON_DATA_DIR", &data)]).await.contains("Removed"));
    assert!(!home.path(".claude/settings.json").exists(), "the settings file setup made is gone again");
}
