//! Connecting Claude Code to Beckon in the files of one scope, or taking that out: each file is
//! read, edited as [`settings`](super::settings) says, and written atomically (a temporary file
//! and a rename, keeping its mode), or left untouched when nothing changes or on a dry run.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::settings;
use crate::Result;
use crate::agent::Agent;
use crate::connect::{Change, Connection, Place, Report, Scope, State};
use crate::invocation::Invocation;
use crate::json_file::{edit, read_json};

/// The files of one scope, and how they should run `beckon`.
#[derive(Debug, Clone)]
pub struct Setup {
    /// Where the hooks and the permission go.
    pub settings: PathBuf,
    /// The file holding the MCP server.
    pub servers: PathBuf,
    /// Inside it, the project whose servers these are (local scope), else its root.
    pub project: Option<String>,
    /// How they run `beckon`.
    pub beckon: Invocation,
    /// The scope.
    pub scope: Scope,
}

impl Setup {
    /// The files of `scope` for a person whose home is `home`, working in `project`, with
    /// Claude Code's `CLAUDE_CONFIG_DIR` (when set) holding its user files.
    pub fn new(scope: Scope, home: &Path, config_dir: Option<&Path>, project: &Path, beckon: &Invocation) -> Setup {
        let user_file = config_dir.unwrap_or(home).join(".claude.json");
        let user_dir = config_dir.map(Path::to_path_buf).unwrap_or_else(|| home.join(".claude"));
        let (settings, servers, inside) = match scope {
            Scope::User => (user_dir.join("settings.json"), user_file, None),
            Scope::Project => (project.join(".claude").join("settings.json"), project.join(".mcp.json"), None),
            Scope::Local => {
                (project.join(".claude").join("settings.local.json"), user_file, Some(project.display().to_string()))
            }
        };
        Setup { settings, servers, project: inside, beckon: beckon.clone(), scope }
    }

    /// The files of `scope` at `place` (`CLAUDE_CONFIG_DIR`, when set, holds the user files).
    pub fn at(scope: Scope, place: &Place, beckon: &Invocation) -> Setup {
        Setup::new(scope, &place.home, place.var("CLAUDE_CONFIG_DIR"), &place.project, beckon)
    }

    /// Adds Beckon (or, with `remove`, takes it out); on a `dry_run` writes nothing.
    pub fn apply(&self, remove: bool, dry_run: bool) -> Result<Report> {
        let settings_changed = edit(&self.settings, dry_run, |value| {
            if remove { settings::remove_settings(value) } else { settings::add_settings(value, &self.beckon) }
        })?;
        let servers_changed = edit(&self.servers, dry_run, |root| {
            in_project(root, self.project.as_deref(), |holder| {
                if remove { settings::remove_server(holder) } else { settings::add_server(holder, &self.beckon) }
            })
        })?;
        let servers_place = match &self.project {
            Some(project) => format!("{} (project {project})", self.servers.display()),
            None => self.servers.display().to_string(),
        };
        Ok(Report {
            changes: vec![
                Change {
                    place: self.settings.display().to_string(),
                    what: "hooks for permission prompts and AskUserQuestion, and permission for mcp__beckon",
                    changed: settings_changed,
                },
                Change { place: servers_place, what: "the MCP server \"beckon\"", changed: servers_changed },
            ],
        })
    }

    /// Whether Claude Code is connected to this `beckon` in this scope.
    pub fn state(&self) -> Result<State> {
        let settings_value = read_json(&self.settings)?.unwrap_or(json!({}));
        let mut root = read_json(&self.servers)?.unwrap_or(json!({}));
        let mut holder = json!({});
        in_project(&mut root, self.project.as_deref(), |found| {
            holder = found.clone();
            false
        });
        Ok(settings::state(&settings_value, &holder, &self.beckon))
    }
}

impl Connection for Setup {
    fn agent(&self) -> Agent {
        Agent::ClaudeCode
    }

    fn scope(&self) -> Scope {
        self.scope
    }

    fn main_file(&self) -> &Path {
        &self.settings
    }

    fn state(&self) -> Result<State> {
        Setup::state(self)
    }

    fn apply(&self, remove: bool, dry_run: bool) -> Result<Report> {
        Setup::apply(self, remove, dry_run)
    }

    fn next_step(&self) -> String {
        "Claude Code's prompts now reach Beckon while it runs; restart running Claude Code sessions to pick this up."
            .into()
    }
}

/// Applies `change` to the servers of one project of `~/.claude.json` (local scope) or, with
/// no project, to the file's root; says whether it changed.
fn in_project(root: &mut Value, project: Option<&str>, change: impl FnOnce(&mut Value) -> bool) -> bool {
    let Some(project) = project else { return change(root) };
    let mut holder = root.get("projects").and_then(|projects| projects.get(project)).cloned().unwrap_or(json!({}));
    if !change(&mut holder) {
        return false;
    }
    if !root.is_object() {
        *root = json!({});
    }
    if !root["projects"].is_object() {
        root["projects"] = json!({});
    }
    root["projects"][project] = holder;
    true
}
