//! Connecting an agent to Beckon: its configuration files for one scope, what connecting writes
//! there, and whether it is there. Each agent's module says which files and what entries; they
//! all answer to [`Connection`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::agent::Agent;
use crate::invocation::Invocation;
use crate::{Error, Result};

/// Where an agent's configuration is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Every project of this user.
    User,
    /// One project, for everyone on it (files in the repository).
    Project,
    /// One project, for this user only (Claude Code only).
    Local,
}

impl Scope {
    /// The scope's name, as `--scope` takes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Project => "project",
            Scope::Local => "local",
        }
    }
}

/// Whether a configuration already holds exactly what connecting would write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Everything is there, as this `beckon` would write it.
    Connected,
    /// Some of it is there, or it runs another `beckon` or other timeouts.
    OutOfDate,
    /// None of it is there.
    NotConnected,
}

/// What happened to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The file (and the part of it, when that needs saying).
    pub place: String,
    /// What Beckon's entries there are.
    pub what: &'static str,
    /// Whether it changed (or would, on a dry run).
    pub changed: bool,
}

/// What connecting or disconnecting did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// One entry per file, in the order they were written.
    pub changes: Vec<Change>,
}

/// The environment an agent's files are found from: the home folder, the project (the current
/// folder), and the variables agents move their files with.
#[derive(Debug, Clone)]
pub struct Place {
    /// The person's home folder.
    pub home: PathBuf,
    /// The project: the folder `beckon setup` runs in.
    pub project: PathBuf,
    vars: BTreeMap<&'static str, PathBuf>,
}

/// The variables agents read their folders from.
pub const PLACE_VARS: [&str; 5] =
    ["CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME", "XDG_CONFIG_HOME", "GEMINI_CLI_HOME"];

impl Place {
    /// A place with no variables set.
    pub fn new(home: &Path, project: &Path) -> Place {
        Place { home: home.to_path_buf(), project: project.to_path_buf(), vars: BTreeMap::new() }
    }

    /// The same place with `name` (one of [`PLACE_VARS`]) set to `value`.
    pub fn with_var(mut self, name: &'static str, value: &Path) -> Place {
        self.vars.insert(name, value.to_path_buf());
        self
    }

    /// A variable's folder, when it is set and not empty.
    pub fn var(&self, name: &str) -> Option<&Path> {
        self.vars.get(name).map(PathBuf::as_path)
    }

    /// The place as this process sees it: `HOME`, the current folder and [`PLACE_VARS`].
    pub fn from_environment() -> Result<Place> {
        let home = std::env::var_os("HOME").map(PathBuf::from).ok_or_else(|| Error::Place("HOME is not set".into()))?;
        let project =
            std::env::current_dir().map_err(|err| Error::Place(format!("cannot read the current folder: {err}")))?;
        let mut place = Place::new(&home, &project);
        for name in PLACE_VARS {
            if let Some(value) = std::env::var_os(name).filter(|v| !v.is_empty()) {
                place = place.with_var(name, Path::new(&value));
            }
        }
        Ok(place)
    }
}

/// One agent's configuration in one scope, and how it should run `beckon`.
pub trait Connection: std::fmt::Debug + Send + Sync {
    /// Whose configuration this is.
    fn agent(&self) -> Agent;
    /// Which scope.
    fn scope(&self) -> Scope;
    /// The file that holds the hooks (what Settings names).
    fn main_file(&self) -> &Path;
    /// Whether the agent is connected to this `beckon` here.
    fn state(&self) -> Result<State>;
    /// Adds Beckon (or, with `remove`, takes out only Beckon's entries); on a `dry_run` writes
    /// nothing.
    fn apply(&self, remove: bool, dry_run: bool) -> Result<Report>;
    /// What the person still has to do (or should know) once connected.
    fn next_step(&self) -> String;
}

/// `agent`'s configuration in `scope` at `place`, running `beckon` as `beckon` says.
pub fn connection(agent: Agent, scope: Scope, place: &Place, beckon: &Invocation) -> Result<Box<dyn Connection>> {
    match agent {
        Agent::ClaudeCode => Ok(Box::new(crate::claude_code::setup::Setup::at(scope, place, beckon))),
        Agent::Codex => crate::codex::connection(scope, place, beckon),
        Agent::Copilot => crate::copilot::connection(scope, place, beckon),
        Agent::OpenCode => crate::opencode::connection(scope, place, beckon),
        Agent::Gemini => crate::gemini::connection(scope, place, beckon),
    }
}
