//! Connecting Codex to Beckon in one scope's `config.toml`, or taking that out: read as TOML
//! documents, edited by [`super::config`], written atomically; a file that is not TOML is left
//! as it is.
//!
//! - User: `$CODEX_HOME/config.toml` (else `~/.codex/config.toml`) gets the MCP server, the
//!   hook, and the record that trusts the hook.
//! - Project: `.codex/config.toml` in the project gets the server and the hook (Beckon's own
//!   file, gone again when removing leaves nothing in it); the trust record goes into the user's
//!   file, the only one Codex reads trust from, so the hook runs for the person who set it up.

use std::path::{Path, PathBuf};

use toml_edit::DocumentMut;

use super::config::{self, NotATable};
use crate::agent::Agent;
use crate::connect::{Change, Connection, Place, Report, Scope, State};
use crate::invocation::Invocation;
use crate::json_file::{read_text, write_text};
use crate::{Error, Result};

/// Codex's configuration in one scope, and how it should run `beckon`.
#[derive(Debug, Clone)]
pub struct Setup {
    scope: Scope,
    /// The file that gets the server and the hook.
    file: PathBuf,
    /// The user's own file, where trust is recorded.
    user_file: PathBuf,
    beckon: Invocation,
}

/// One file's edited text, and whether it changed.
struct Edited {
    path: PathBuf,
    doc: DocumentMut,
    changed: bool,
    what: &'static str,
}

impl Setup {
    /// The files of `scope` at `place`.
    pub fn at(scope: Scope, place: &Place, beckon: &Invocation) -> Result<Setup> {
        let home = place.var("CODEX_HOME").map(Path::to_path_buf).unwrap_or_else(|| place.home.join(".codex"));
        let user_file = real(&place.project, &home).join("config.toml");
        let file = match scope {
            Scope::User => user_file.clone(),
            Scope::Project => real(&place.project, &place.project).join(".codex").join("config.toml"),
            Scope::Local => {
                return Err(Error::NoSuchScope { agent: "codex", scope: "local", offered: "user or project" });
            }
        };
        Ok(Setup { scope, file, user_file, beckon: beckon.clone() })
    }

    fn read(&self, path: &Path) -> Result<DocumentMut> {
        let text = read_text(path)?.unwrap_or_default();
        text.parse().map_err(|err: toml_edit::TomlError| Error::NotToml {
            path: path.display().to_string(),
            detail: err.message().trim().to_owned(),
        })
    }

    fn refused(path: &Path, NotATable(key): NotATable) -> Error {
        Error::NotToml { path: path.display().to_string(), detail: format!("{key} is not a table") }
    }

    /// The files as connecting (or, with `remove`, disconnecting) would leave them.
    fn edited(&self, remove: bool) -> Result<Vec<Edited>> {
        let name = self.file.display().to_string();
        let mut doc = self.read(&self.file)?;
        if self.scope == Scope::User {
            let changed = if remove {
                config::disconnect(&mut doc, &self.beckon, Some(&name))
            } else {
                config::connect(&mut doc, &self.beckon, Some(&name)).map_err(|err| Self::refused(&self.file, err))?
            };
            let what = "the MCP server \"beckon\" and trusted hooks for permission prompts";
            return Ok(vec![Edited { path: self.file.clone(), doc, changed, what }]);
        }
        let mut user = self.read(&self.user_file)?;
        let (changed, trusted) = if remove {
            let (removed, mut taken) = config::remove(&mut doc);
            taken.extend(config::HOOKS.map(|hook| (hook, config::hook_command(&self.beckon))));
            (removed, config::untrust(&mut user, &name, &taken))
        } else {
            let (added, places) = config::add(&mut doc, &self.beckon).map_err(|err| Self::refused(&self.file, err))?;
            let trusted =
                config::trust(&mut user, &name, &places).map_err(|err| Self::refused(&self.user_file, err))?;
            (added, trusted)
        };
        Ok(vec![
            Edited {
                path: self.file.clone(),
                doc,
                changed,
                what: "the MCP server \"beckon\" and hooks for permission prompts",
            },
            Edited {
                path: self.user_file.clone(),
                doc: user,
                changed: trusted,
                what: "your trust in the project's Beckon hooks",
            },
        ])
    }
}

/// `path` made absolute against `base` and, when it exists, real: Codex names its files by
/// their real paths.
fn real(base: &Path, path: &Path) -> PathBuf {
    let path = if path.is_absolute() { path.to_path_buf() } else { base.join(path) };
    path.canonicalize().unwrap_or(path)
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
        if self.edited(false)?.iter().all(|edited| !edited.changed) {
            return Ok(State::Connected);
        }
        let there = self.edited(true)?.iter().any(|edited| edited.changed);
        Ok(if there { State::OutOfDate } else { State::NotConnected })
    }

    fn apply(&self, remove: bool, dry_run: bool) -> Result<Report> {
        let edited = self.edited(remove)?;
        if !dry_run {
            for Edited { path, doc, changed, .. } in &edited {
                let text = doc.to_string();
                let own_file = self.scope == Scope::Project && *path == self.file;
                if !changed {
                    continue;
                }
                if remove && own_file && text.trim().is_empty() {
                    std::fs::remove_file(path).map_err(|err| Error::Io {
                        action: "cannot remove",
                        path: path.display().to_string(),
                        detail: err.to_string(),
                    })?;
                } else {
                    write_text(path, &text)?;
                }
            }
        }
        let changes = edited
            .into_iter()
            .map(|Edited { path, changed, what, .. }| Change { place: path.display().to_string(), what, changed })
            .collect();
        Ok(Report { changes })
    }

    fn next_step(&self) -> String {
        match self.scope {
            Scope::Project => "Codex reads a project's .codex/config.toml only once you trust the project (it asks on \
                the first start there); the hook is trusted for you, and others on the project are asked to review \
                it (\"Hooks need review\", or /hooks). Restart running Codex sessions to pick this up."
                .into(),
            _ => "Codex's permission prompts now reach Beckon, and Beckon's tools run without asking; restart running \
                Codex sessions to pick this up."
                .into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BECKON: &str = "/usr/bin/beckon";

    fn beckon() -> Invocation {
        Invocation::new(BECKON)
    }

    #[test]
    fn the_project_scope_trusts_its_hook_in_the_users_file_and_takes_both_out_again() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let (home, project) = (root.join("home"), root.join("shop"));
        std::fs::create_dir_all(home.join(".codex")).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        let user = home.join(".codex/config.toml");
        std::fs::write(&user, "# mine\nmodel = \"o3\"\n").unwrap();
        let setup = Setup::at(Scope::Project, &Place::new(&home, &project), &beckon()).unwrap();
        assert_eq!(setup.state().unwrap(), State::NotConnected);
        let report = setup.apply(false, false).unwrap();
        assert_eq!(report.changes.len(), 2);
        let written = std::fs::read_to_string(project.join(".codex/config.toml")).unwrap();
        assert!(written.contains("/usr/bin/beckon hook codex") && !written.contains("trusted_hash"), "{written}");
        let trusted = std::fs::read_to_string(&user).unwrap();
        let key = format!("{}:permission_request:0:0", project.join(".codex/config.toml").display());
        assert!(trusted.starts_with("# mine\nmodel = \"o3\"\n") && trusted.contains(&key), "{trusted}");
        assert_eq!(setup.state().unwrap(), State::Connected);
        setup.apply(true, false).unwrap();
        assert!(!project.join(".codex/config.toml").exists(), "Beckon's own file goes");
        assert_eq!(std::fs::read_to_string(&user).unwrap(), "# mine\nmodel = \"o3\"\n");
        assert_eq!(setup.state().unwrap(), State::NotConnected);
        assert!(matches!(
            Setup::at(Scope::Local, &Place::new(&home, &project), &beckon()),
            Err(Error::NoSuchScope { .. })
        ));
    }

    #[test]
    fn a_file_that_is_not_toml_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir_all(home.join(".codex")).unwrap();
        std::fs::write(home.join(".codex/config.toml"), "model = [\n").unwrap();
        let setup = Setup::at(Scope::User, &Place::new(&home, dir.path()), &beckon()).unwrap();
        assert!(matches!(setup.apply(false, false), Err(Error::NotToml { .. })));
        assert!(matches!(setup.state(), Err(Error::NotToml { .. })));
        assert_eq!(std::fs::read_to_string(home.join(".codex/config.toml")).unwrap(), "model = [\n");
    }
}
