//! Connecting Copilot CLI to Beckon in the files of one scope, or taking that out: each file is
//! read whole, edited by [`super::settings`], and written atomically.
//!
//! - User: the hook in `$COPILOT_HOME/settings.json`, the MCP server in
//!   `$COPILOT_HOME/mcp-config.json` (`~/.copilot` when `COPILOT_HOME` is not set).
//! - Project: the hook in `.github/hooks/beckon.json` (Beckon's own file, gone again when
//!   removing leaves nothing in it), the MCP server in `.github/mcp.json`.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::settings;
use crate::agent::Agent;
use crate::connect::{Change, Connection, Place, Report, Scope, State};
use crate::invocation::Invocation;
use crate::json_file::{edit, read_json};
use crate::{Error, Result};

/// The version of the hooks file format Copilot reads.
const HOOKS_FILE_VERSION: u64 = 1;

/// Copilot CLI's configuration in one scope, and how it should run `beckon`.
#[derive(Debug, Clone)]
pub struct Setup {
    scope: Scope,
    hooks: PathBuf,
    servers: PathBuf,
    beckon: Invocation,
}

impl Setup {
    /// The files of `scope` at `place`.
    pub fn at(scope: Scope, place: &Place, beckon: &Invocation) -> Result<Setup> {
        let (hooks, servers) = match scope {
            Scope::User => {
                let home =
                    place.var("COPILOT_HOME").map(Path::to_path_buf).unwrap_or_else(|| place.home.join(".copilot"));
                (home.join("settings.json"), home.join("mcp-config.json"))
            }
            Scope::Project => {
                let github = place.project.join(".github");
                (github.join("hooks").join("beckon.json"), github.join("mcp.json"))
            }
            Scope::Local => {
                return Err(Error::NoSuchScope { agent: "copilot", scope: "local", offered: "user or project" });
            }
        };
        Ok(Setup { scope, hooks, servers, beckon: beckon.clone() })
    }

    /// Whether the hooks file is Beckon's own (the project's `beckon.json`).
    fn owns_hooks_file(&self) -> bool {
        self.scope == Scope::Project
    }
}

impl Connection for Setup {
    fn agent(&self) -> Agent {
        Agent::Copilot
    }

    fn scope(&self) -> Scope {
        self.scope
    }

    fn main_file(&self) -> &Path {
        &self.hooks
    }

    fn state(&self) -> Result<State> {
        let hooks = read_json(&self.hooks)?.unwrap_or(json!({}));
        let servers = read_json(&self.servers)?.unwrap_or(json!({}));
        Ok(settings::state(&hooks, &servers, &self.beckon))
    }

    fn apply(&self, remove: bool, dry_run: bool) -> Result<Report> {
        let hooks_changed = if remove && self.owns_hooks_file() {
            remove_own_file(&self.hooks, dry_run)?
        } else {
            edit(&self.hooks, dry_run, |value| {
                if remove {
                    return settings::remove_hook(value);
                }
                let changed = settings::add_hook(value, &self.beckon);
                if self.owns_hooks_file() && value.get("version").is_none() {
                    value["version"] = json!(HOOKS_FILE_VERSION);
                    return true;
                }
                changed
            })?
        };
        let servers_changed = edit(&self.servers, dry_run, |value| {
            if remove { settings::remove_server(value) } else { settings::add_server(value, &self.beckon) }
        })?;
        Ok(Report {
            changes: vec![
                Change {
                    place: self.hooks.display().to_string(),
                    what: "hooks for permission prompts",
                    changed: hooks_changed,
                },
                Change {
                    place: self.servers.display().to_string(),
                    what: "the MCP server \"beckon\"",
                    changed: servers_changed,
                },
            ],
        })
    }

    fn next_step(&self) -> String {
        match self.scope {
            Scope::Project => "Copilot CLI loads a project's hooks only in a folder you trust (--trust-folder, or \
                when it asks); restart running Copilot CLI sessions to pick this up."
                .into(),
            _ => "Copilot CLI's permission prompts now reach Beckon while it runs; restart running Copilot CLI \
                sessions to pick this up."
                .into(),
        }
    }
}

/// Takes Beckon's hook out of its own hooks file, and the file itself when nothing else is in
/// it; says whether it changed.
fn remove_own_file(path: &Path, dry_run: bool) -> Result<bool> {
    let Some(mut value) = read_json(path)? else { return Ok(false) };
    if !settings::remove_hook(&mut value) {
        return Ok(false);
    }
    let only_version = value.as_object().is_some_and(|root| root.keys().all(|key| key == "version"));
    if dry_run {
        return Ok(true);
    }
    if only_version {
        std::fs::remove_file(path).map_err(|err| Error::Io {
            action: "cannot remove",
            path: path.display().to_string(),
            detail: err.to_string(),
        })?;
        return Ok(true);
    }
    crate::json_file::write_json(path, &value).map(|()| true)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BECKON: &str = "/usr/bin/beckon";

    fn beckon() -> Invocation {
        Invocation::new(BECKON)
    }

    fn read(path: &Path) -> serde_json::Value {
        read_json(path).unwrap().unwrap()
    }

    #[test]
    fn the_project_hooks_file_is_made_with_its_version_and_gone_again_on_remove() {
        let dir = tempfile::tempdir().unwrap();
        let place = Place::new(&dir.path().join("home"), &dir.path().join("shop"));
        let setup = Setup::at(Scope::Project, &place, &beckon()).unwrap();
        assert_eq!(setup.state().unwrap(), State::NotConnected);
        setup.apply(false, false).unwrap();
        let hooks = dir.path().join("shop/.github/hooks/beckon.json");
        assert_eq!(
            read(&hooks),
            json!({"hooks": {"permissionRequest": [{"type": "command", "bash": "/usr/bin/beckon hook copilot",
                "timeoutSec": 86400}], "userPromptSubmitted": [{"type": "command",
                "bash": "/usr/bin/beckon hook copilot", "timeoutSec": 10}], "sessionEnd": [{"type": "command",
                "bash": "/usr/bin/beckon hook copilot", "timeoutSec": 10}]}, "version": 1})
        );
        assert_eq!(read(&dir.path().join("shop/.github/mcp.json"))["mcpServers"]["beckon"]["command"], BECKON);
        assert_eq!(setup.state().unwrap(), State::Connected);
        assert!(!setup.apply(false, false).unwrap().changes.iter().any(|c| c.changed), "idempotent");
        setup.apply(true, false).unwrap();
        assert!(!hooks.exists());
        assert_eq!(setup.state().unwrap(), State::NotConnected);
    }

    #[test]
    fn the_user_files_follow_copilot_home_and_local_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let place = Place::new(&dir.path().join("home"), &dir.path().join("shop"));
        let setup = Setup::at(Scope::User, &place, &beckon()).unwrap();
        assert_eq!(setup.main_file(), dir.path().join("home/.copilot/settings.json"));
        let moved = place.clone().with_var("COPILOT_HOME", &dir.path().join("elsewhere"));
        assert_eq!(
            Setup::at(Scope::User, &moved, &beckon()).unwrap().main_file(),
            dir.path().join("elsewhere/settings.json")
        );
        assert!(matches!(Setup::at(Scope::Local, &place, &beckon()), Err(Error::NoSuchScope { .. })));
    }
}
