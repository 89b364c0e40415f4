//! "Connect Claude Code" in Settings: the same configuration `beckon setup claude-code` writes
//! (user scope), run with the `beckon` command that sits beside the app or on PATH.

use std::path::PathBuf;

use beckon_agents::claude_code::setup::Setup;
use beckon_agents::{Place, Scope, State};
use serde::{Deserialize, Serialize};

/// Whether Claude Code is connected to Beckon.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaudeCodeState {
    /// Its settings run this Beckon's `beckon` for every prompt.
    Connected,
    /// Some of it is there, or it runs another `beckon`.
    OutOfDate,
    /// Nothing of Beckon is in its settings.
    NotConnected,
    /// It cannot be told or changed (no `beckon` command found, or a settings file is broken).
    Unavailable,
}

/// Claude Code's connection as Settings shows it.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClaudeCodeView {
    /// Where it stands.
    pub state: ClaudeCodeState,
    /// The `beckon` command Claude Code runs, when one was found.
    pub program: Option<String>,
    /// Claude Code's settings file that holds the hooks.
    pub settings_file: Option<String>,
    /// Why it is unavailable.
    pub problem: Option<String>,
}

/// The `beckon` command: beside the app (as packages install it), else on PATH.
pub fn program() -> Option<PathBuf> {
    let beside = std::env::current_exe().ok().and_then(|exe| exe.parent().map(|dir| dir.join("beckon")));
    let on_path = std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).map(|dir| dir.join("beckon")).collect::<Vec<_>>())
        .unwrap_or_default();
    beside
        .into_iter()
        .chain(on_path)
        .find(|candidate| candidate.is_file())
        .map(|found| found.canonicalize().unwrap_or(found))
}

fn setup() -> Result<Setup, ClaudeCodeView> {
    let unavailable = |problem: String, program: Option<String>| ClaudeCodeView {
        state: ClaudeCodeState::Unavailable,
        program,
        settings_file: None,
        problem: Some(problem),
    };
    let Some(found) = program() else {
        return Err(unavailable(
            "the beckon command was found neither beside Beckon nor on PATH; install Beckon's package, or build it with cargo build -p beckon-cli".into(),
            None,
        ));
    };
    let program = found.display().to_string();
    Place::from_environment()
        .map(|place| Setup::at(Scope::User, &place, &program))
        .map_err(|err| unavailable(err.to_string(), Some(program)))
}

fn view_of(setup: &Setup, state: Result<State, beckon_agents::Error>) -> ClaudeCodeView {
    let (state, problem) = match state {
        Ok(State::Connected) => (ClaudeCodeState::Connected, None),
        Ok(State::OutOfDate) => (ClaudeCodeState::OutOfDate, None),
        Ok(State::NotConnected) => (ClaudeCodeState::NotConnected, None),
        Err(err) => (ClaudeCodeState::Unavailable, Some(err.to_string())),
    };
    ClaudeCodeView {
        state,
        program: Some(setup.program.clone()),
        settings_file: Some(setup.settings.display().to_string()),
        problem,
    }
}

/// Where Claude Code stands.
pub fn view() -> ClaudeCodeView {
    match setup() {
        Ok(setup) => view_of(&setup, setup.state()),
        Err(view) => view,
    }
}

/// Connects Claude Code (or, with `remove`, disconnects it) and says where it then stands.
pub fn connect(remove: bool) -> ClaudeCodeView {
    match setup() {
        Ok(setup) => match setup.apply(remove, false) {
            Ok(_) => view_of(&setup, setup.state()),
            Err(err) => view_of(&setup, Err(err)),
        },
        Err(view) => view,
    }
}
