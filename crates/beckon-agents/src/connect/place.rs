//! Where an agent's files are found from: the home folder, the project, and the variables
//! agents move their folders with.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::{Error, Result};

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
