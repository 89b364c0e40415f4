//! Settings › Agents: each agent Beckon connects to, whether it is installed and connected, and
//! Connect / Disconnect — the same configuration `beckon setup <agent>` writes (user scope), run
//! with the `beckon` command that sits beside the app or on PATH.

use std::path::{Path, PathBuf};

use beckon_agents::{Agent, Approvals, Connection, Invocation, Place, Scope, State};
use serde::{Deserialize, Serialize};

/// Where an agent stands.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentState {
    /// Its configuration runs this Beckon's `beckon` for its prompts.
    Connected,
    /// Some of it is there, or it runs another `beckon`.
    OutOfDate,
    /// It is installed, and nothing of Beckon is in its configuration.
    NotConnected,
    /// Its command is not on PATH, and nothing of Beckon is in its configuration.
    NotInstalled,
    /// It cannot be told or changed (no `beckon` command found, or a configuration file is
    /// broken).
    Unavailable,
}

/// One agent as Settings shows it.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentView {
    /// The name `beckon setup` takes (`codex`).
    pub name: String,
    /// The name people know it by (`Codex CLI`).
    pub title: String,
    /// Where it stands.
    pub state: AgentState,
    /// Whether its command is on PATH.
    pub installed: bool,
    /// Whether Beckon answers its permission prompts (else they arrive as notices).
    pub answers_approvals: bool,
    /// What Beckon cannot do for it, in words.
    pub limits: Option<String>,
    /// The file that holds Beckon's hooks for it.
    pub config_file: Option<String>,
    /// The `beckon` command it runs, when one was found.
    pub program: Option<String>,
    /// What the person still has to do once it is connected.
    pub next_step: Option<String>,
    /// Why it is unavailable.
    pub problem: Option<String>,
}

/// The `beckon` command: beside the app (as packages install it), else on PATH.
pub fn program() -> Option<PathBuf> {
    let beside = std::env::current_exe().ok().and_then(|exe| exe.parent().map(|dir| dir.join("beckon")));
    beside
        .filter(|candidate| candidate.is_file())
        .or_else(|| on_path("beckon"))
        .map(|found| found.canonicalize().unwrap_or(found))
}

/// `command` in a folder of PATH.
fn on_path(command: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(command)).find(|candidate| is_program(candidate))
}

fn is_program(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// The view of `agent` before its files are read: installed or not, what it allows.
fn base(agent: Agent) -> AgentView {
    AgentView {
        name: agent.name().to_owned(),
        title: agent.title().to_owned(),
        state: AgentState::Unavailable,
        installed: on_path(agent.program()).is_some(),
        answers_approvals: agent.approvals() == Approvals::Answered,
        limits: agent.limits().map(str::to_owned),
        config_file: None,
        program: None,
        next_step: None,
        problem: None,
    }
}

fn connection(agent: Agent) -> Result<Box<dyn Connection>, Box<AgentView>> {
    let unavailable = |problem: String, program: Option<String>| {
        Box::new(AgentView { program, problem: Some(problem), ..base(agent) })
    };
    let Some(found) = program() else {
        return Err(unavailable(
            "the beckon command was found neither beside Beckon nor on PATH; install Beckon's package, or build it with cargo build -p beckon-cli -p beckon-server".into(),
            None,
        ));
    };
    let program = found.display().to_string();
    // The agents are told this app's data folder when it is not the one `beckon` finds from the
    // home folder alone.
    Place::from_environment()
        .and_then(|place| {
            let usual = beckon_runtime::app_data_dir(&place.home, None);
            let beckon = Invocation::on_data_dir(program.clone(), &beckon_runtime::default_data_dir(), &usual)?;
            beckon_agents::connection(agent, Scope::User, &place, &beckon)
        })
        .map_err(|err| unavailable(err.to_string(), Some(program)))
}

fn view_of(connection: &dyn Connection, state: Result<State, beckon_agents::Error>) -> AgentView {
    let mut view = base(connection.agent());
    view.state = match state {
        Ok(State::Connected) => AgentState::Connected,
        Ok(State::OutOfDate) => AgentState::OutOfDate,
        Ok(State::NotConnected) if view.installed => AgentState::NotConnected,
        Ok(State::NotConnected) => AgentState::NotInstalled,
        Err(err) => {
            view.problem = Some(err.to_string());
            AgentState::Unavailable
        }
    };
    view.config_file = Some(connection.main_file().display().to_string());
    view.program = program().map(|path| path.display().to_string());
    view.next_step = Some(connection.next_step());
    view
}

/// Where `agent` stands.
pub fn view(agent: Agent) -> AgentView {
    match connection(agent) {
        Ok(connection) => view_of(connection.as_ref(), connection.state()),
        Err(view) => *view,
    }
}

/// Every agent, in Settings' order.
pub fn views() -> Vec<AgentView> {
    Agent::ALL.into_iter().map(view).collect()
}

/// Connects `agent` (or, with `remove`, disconnects it) and says where it then stands.
pub fn connect(agent: Agent, remove: bool) -> AgentView {
    match connection(agent) {
        Ok(connection) => match connection.apply(remove, false) {
            Ok(_) => view_of(connection.as_ref(), connection.state()),
            Err(err) => view_of(connection.as_ref(), Err(err)),
        },
        Err(view) => *view,
    }
}

/// A view saying the agent's state could not be read at all.
pub fn failed(agent: Agent, err: &dyn std::fmt::Display) -> AgentView {
    AgentView { problem: Some(err.to_string()), ..base(agent) }
}
