//! Connecting Codex to Beckon in one scope's `config.toml`, or taking that out: read as a
//! TOML document, edited by [`super::config`], written atomically; a file that is not TOML is
//! left as it is.

use std::path::{Path, PathBuf};

use toml_edit::DocumentMut;

use super::config::{self, NotATable};
use crate::agent::Agent;
use crate::connect::{Change, Connection, Place, Report, Scope, State};
use crate::json_file::{read_text, write_text};
use crate::{Error, Result};

/// Codex's configuration in one scope, and the `beckon` it should run.
#[derive(Debug, Clone)]
pub struct Setup {
    scope: Scope,
    file: PathBuf,
    /// The file as Codex names it in its trust records; only the user's own file holds them.
    trust_file: Option<String>,
    program: String,
}

impl Setup {
    /// The file of `scope` at `place`: `$CODEX_HOME/config.toml` (else `~/.codex/config.toml`)
    /// for the user, `.codex/config.toml` in the project.
    pub fn at(scope: Scope, place: &Place, program: &str) -> Result<Setup> {
        let (file, trusts) = match scope {
            Scope::User => {
                let home = place.var("CODEX_HOME").map(Path::to_path_buf).unwrap_or_else(|| place.home.join(".codex"));
                let home = if home.is_absolute() { home } else { place.project.join(home) };
                // Codex names its files by the real path of its home.
                let home = home.canonicalize().unwrap_or(home);
                (home.join("config.toml"), true)
            }
            Scope::Project => (place.project.join(".codex").join("config.toml"), false),
            Scope::Local => {
                return Err(Error::NoSuchScope { agent: "codex", scope: "local", offered: "user or project" });
            }
        };
        let trust_file = trusts.then(|| file.display().to_string());
        Ok(Setup { scope, file, trust_file, program: program.to_owned() })
    }

    fn read(&self) -> Result<DocumentMut> {
        let text = read_text(&self.file)?.unwrap_or_default();
        text.parse().map_err(|err: toml_edit::TomlError| Error::NotToml {
            path: self.file.display().to_string(),
            detail: err.message().to_owned(),
        })
    }

    fn refused(&self, NotATable(key): NotATable) -> Error {
        Error::NotToml { path: self.file.display().to_string(), detail: format!("{key} is not a table") }
    }
}

impl Connection for Setup {
    fn agent(&self) -> Agent {
        Agent::Codex
    }

    fn scope(&self) -> Scope {
        self.scope
    }

    fn main_file(&self) -> &Path {
        &self.file
    }

    fn state(&self) -> Result<State> {
        Ok(config::state(&self.read()?, &self.program, self.trust_file.as_deref()))
    }

    fn apply(&self, remove: bool, dry_run: bool) -> Result<Report> {
        let mut doc = self.read()?;
        let changed = if remove {
            config::remove(&mut doc, self.trust_file.as_deref())
        } else {
            config::add(&mut doc, &self.program, self.trust_file.as_deref()).map_err(|err| self.refused(err))?
        };
        if changed && !dry_run {
            write_text(&self.file, &doc.to_string())?;
        }
        let what = if self.trust_file.is_some() {
            "the MCP server \"beckon\" and a trusted hook for permission prompts"
        } else {
            "the MCP server \"beckon\" and a hook for permission prompts"
        };
        Ok(Report { changes: vec![Change { place: self.file.display().to_string(), what, changed }] })
    }

    fn next_step(&self) -> String {
        match self.scope {
            Scope::Project => "Codex reads .codex/config.toml only in a project you trust, and runs a project's hooks \
                only once you trust them: start Codex here and accept Beckon's hook when it says \"Hooks need review\" \
                (or under /hooks)."
                .into(),
            _ => "Codex's permission prompts now reach Beckon, and Beckon's tools run without asking; restart running \
                Codex sessions to pick this up."
                .into(),
        }
    }
}
