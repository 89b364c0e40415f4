//! Connecting OpenCode to Beckon in one scope, or taking that out: the plugin file in OpenCode's
//! plugin folder, and the MCP server in `opencode.json` (edited as [`config`](super::config)
//! says, written atomically, keeping its mode and every other key).
//!
//! - User scope: `$XDG_CONFIG_HOME/opencode/` (else `~/.config/opencode/`): `opencode.json`
//!   and `plugins/beckon.js`.
//! - Project scope: the project's `opencode.json` and `.opencode/plugins/beckon.js`.
//!
//! OpenCode 1.18 loads every `{plugin,plugins}/*.{js,ts}` of those folders; `plugins/` is the
//! name its documentation gives. Where only an `opencode.jsonc` exists, that file is edited
//! instead (it must hold plain JSON, or setup changes nothing and says so).

use std::path::{Path, PathBuf};

use serde_json::json;

use super::{config, plugin};
use crate::agent::Agent;
use crate::connect::{Change, Connection, Place, Report, Scope, State};
use crate::invocation::Invocation;
use crate::json_file::{edit, read_json, read_text, write_text};
use crate::{Error, Result};

/// The files of one scope, and how they should run `beckon`.
#[derive(Debug, Clone)]
pub struct Setup {
    /// The configuration file that holds the MCP server.
    pub config: PathBuf,
    /// The plugin file.
    pub plugin: PathBuf,
    /// How they run `beckon`.
    pub beckon: Invocation,
    /// The scope.
    pub scope: Scope,
}

impl Setup {
    /// The files of `scope` at `place`.
    pub fn at(scope: Scope, place: &Place, beckon: &Invocation) -> Result<Setup> {
        let folder = match scope {
            Scope::User => match place.var("XDG_CONFIG_HOME") {
                Some(config_home) => config_home.join("opencode"),
                None => place.home.join(".config").join("opencode"),
            },
            Scope::Project => place.project.clone(),
            Scope::Local => {
                return Err(Error::NoSuchScope { agent: "opencode", scope: "local", offered: "user or project" });
            }
        };
        let plugins = match scope {
            Scope::Project => folder.join(".opencode").join("plugins"),
            Scope::User | Scope::Local => folder.join("plugins"),
        };
        Ok(Setup {
            config: config_file(&folder),
            plugin: plugins.join(plugin::FILE_NAME),
            beckon: beckon.clone(),
            scope,
        })
    }

    /// Adds Beckon (or, with `remove`, takes it out); on a `dry_run` writes nothing.
    pub fn apply(&self, remove: bool, dry_run: bool) -> Result<Report> {
        let found = read_text(&self.plugin)?;
        let theirs = found.as_deref().is_some_and(|text| !plugin::is_ours(text));
        if theirs && !remove {
            return Err(Error::Io {
                action: "will not replace",
                path: self.plugin.display().to_string(),
                detail: "it is not Beckon's plugin; move it away and run setup again".into(),
            });
        }
        let plugin_changed = if remove {
            // A file of the same name that Beckon did not write stays.
            let changed = found.is_some() && !theirs;
            if changed && !dry_run {
                self.delete_plugin()?;
            }
            changed
        } else {
            let wanted = plugin::source(&self.beckon);
            let changed = found.as_deref() != Some(wanted.as_str());
            if changed && !dry_run {
                write_text(&self.plugin, &wanted)?;
            }
            changed
        };
        let config_changed = edit(&self.config, dry_run, |value| {
            if remove { config::remove_server(value) } else { config::add_server(value, &self.beckon) }
        })?;
        Ok(Report {
            changes: vec![
                Change {
                    place: self.plugin.display().to_string(),
                    what: "the plugin that brings OpenCode's permission prompts and questions to Beckon",
                    changed: plugin_changed,
                },
                Change {
                    place: self.config.display().to_string(),
                    what: "the MCP server \"beckon\"",
                    changed: config_changed,
                },
            ],
        })
    }

    /// Whether OpenCode is connected to this `beckon` in this scope.
    pub fn state(&self) -> Result<State> {
        let plugin = read_text(&self.plugin)?.filter(|text| plugin::is_ours(text));
        let config = read_json(&self.config)?.unwrap_or(json!({}));
        let server = config::server_state(&config, &self.beckon);
        let plugin_current = plugin.as_deref().map(|text| text == plugin::source(&self.beckon));
        Ok(match (plugin_current, server) {
            (Some(true), Some(true)) => State::Connected,
            (None, None) => State::NotConnected,
            _ => State::OutOfDate,
        })
    }

    /// Deletes the plugin file, and the plugin folder (and a project's `.opencode`) when that
    /// leaves them empty.
    fn delete_plugin(&self) -> Result<()> {
        std::fs::remove_file(&self.plugin).map_err(|err| Error::Io {
            action: "cannot delete",
            path: self.plugin.display().to_string(),
            detail: err.to_string(),
        })?;
        // Only empty folders go; one that still holds anything stays as it is.
        if let Some(folder) = self.plugin.parent()
            && std::fs::remove_dir(folder).is_ok()
            && self.scope == Scope::Project
            && let Some(dot_opencode) = folder.parent()
        {
            let _ = std::fs::remove_dir(dot_opencode);
        }
        Ok(())
    }
}

/// The configuration file in `folder`: `opencode.json`, or an `opencode.jsonc` when only that
/// exists.
fn config_file(folder: &Path) -> PathBuf {
    let json = folder.join("opencode.json");
    let jsonc = folder.join("opencode.jsonc");
    if !json.exists() && jsonc.exists() { jsonc } else { json }
}

impl Connection for Setup {
    fn agent(&self) -> Agent {
        Agent::OpenCode
    }

    fn scope(&self) -> Scope {
        self.scope
    }

    fn main_file(&self) -> &Path {
        &self.plugin
    }

    fn state(&self) -> Result<State> {
        Setup::state(self)
    }

    fn apply(&self, remove: bool, dry_run: bool) -> Result<Report> {
        Setup::apply(self, remove, dry_run)
    }

    fn next_step(&self) -> String {
        let restart = "OpenCode's permission prompts and questions now reach Beckon while it runs; restart running OpenCode sessions to load the plugin.";
        match self.scope {
            Scope::Project => format!(
                "{restart} The plugin runs {}: on a machine without Beckon there, it does nothing.",
                self.beckon.program()
            ),
            Scope::User | Scope::Local => restart.to_owned(),
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

    fn place(dir: &Path) -> Place {
        Place::new(&dir.join("home"), &dir.join("shop"))
    }

    #[test]
    fn the_scopes_name_opencodes_folders() {
        let dir = tempfile::tempdir().unwrap();
        let user = Setup::at(Scope::User, &place(dir.path()), &beckon()).unwrap();
        assert_eq!(user.config, dir.path().join("home/.config/opencode/opencode.json"));
        assert_eq!(user.plugin, dir.path().join("home/.config/opencode/plugins/beckon.js"));
        let moved = place(dir.path()).with_var("XDG_CONFIG_HOME", &dir.path().join("xdg"));
        assert_eq!(
            Setup::at(Scope::User, &moved, &beckon()).unwrap().plugin,
            dir.path().join("xdg/opencode/plugins/beckon.js")
        );
        let project = Setup::at(Scope::Project, &place(dir.path()), &beckon()).unwrap();
        assert_eq!(project.config, dir.path().join("shop/opencode.json"));
        assert_eq!(project.plugin, dir.path().join("shop/.opencode/plugins/beckon.js"));
        assert!(matches!(Setup::at(Scope::Local, &place(dir.path()), &beckon()), Err(Error::NoSuchScope { .. })));
        std::fs::create_dir_all(dir.path().join("shop")).unwrap();
        std::fs::write(dir.path().join("shop/opencode.jsonc"), "{}").unwrap();
        assert_eq!(
            Setup::at(Scope::Project, &place(dir.path()), &beckon()).unwrap().config,
            dir.path().join("shop/opencode.jsonc")
        );
    }

    #[test]
    fn connecting_then_removing_gives_back_the_files_and_folders_as_they_were() {
        let dir = tempfile::tempdir().unwrap();
        let shop = dir.path().join("shop");
        std::fs::create_dir_all(&shop).unwrap();
        let original = "{\n  \"model\": \"fake/fake-model\",\n  \"permission\": {\n    \"bash\": \"ask\"\n  }\n}\n";
        std::fs::write(shop.join("opencode.json"), original).unwrap();
        let setup = Setup::at(Scope::Project, &place(dir.path()), &beckon()).unwrap();
        assert_eq!(setup.state().unwrap(), State::NotConnected);

        let dry = setup.apply(false, true).unwrap();
        assert!(dry.changes.iter().all(|c| c.changed));
        assert!(!setup.plugin.exists(), "a dry run writes nothing");

        setup.apply(false, false).unwrap();
        assert_eq!(setup.state().unwrap(), State::Connected);
        assert_eq!(std::fs::read_to_string(&setup.plugin).unwrap(), plugin::source(&beckon()));
        let again = setup.apply(false, false).unwrap();
        assert!(again.changes.iter().all(|c| !c.changed), "{again:?}");

        let other = Setup::at(Scope::Project, &place(dir.path()), &Invocation::new("/opt/new/beckon")).unwrap();
        assert_eq!(other.state().unwrap(), State::OutOfDate, "another beckon's files are out of date");

        let removed = setup.apply(true, false).unwrap();
        assert!(removed.changes.iter().all(|c| c.changed));
        assert_eq!(std::fs::read_to_string(shop.join("opencode.json")).unwrap(), original);
        assert!(!shop.join(".opencode").exists(), "the folders setup made go with the plugin");
        assert_eq!(setup.state().unwrap(), State::NotConnected);
    }

    #[test]
    fn a_plugin_file_that_is_not_beckons_is_never_replaced_or_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let setup = Setup::at(Scope::User, &place(dir.path()), &beckon()).unwrap();
        std::fs::create_dir_all(setup.plugin.parent().unwrap()).unwrap();
        std::fs::write(&setup.plugin, "export const Mine = async () => ({});\n").unwrap();
        assert!(matches!(setup.apply(false, false), Err(Error::Io { action: "will not replace", .. })));
        let removed = setup.apply(true, false).unwrap();
        assert!(removed.changes.iter().all(|c| !c.changed), "{removed:?}");
        assert_eq!(std::fs::read_to_string(&setup.plugin).unwrap(), "export const Mine = async () => ({});\n");
        assert!(!setup.config.exists());
        assert_eq!(setup.state().unwrap(), State::NotConnected);
    }
}
