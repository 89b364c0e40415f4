//! Connecting Claude Code to Beckon in the files of one scope, or taking that out: each file is
//! read, edited as [`settings`](crate::settings) says, and written atomically (a temporary file
//! and a rename, keeping its mode), or left untouched when nothing changes or on a dry run.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::settings::{self, State};
use crate::{Error, Result};

/// Claude Code's settings scopes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Every project of this user: `~/.claude/settings.json` and `~/.claude.json`.
    User,
    /// One project, for everyone on it: `.claude/settings.json` and `.mcp.json`.
    Project,
    /// One project, for this user: `.claude/settings.local.json` and the project's entry in
    /// `~/.claude.json`.
    Local,
}

impl Scope {
    /// The scope's name, as Claude Code's `--scope` takes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Project => "project",
            Scope::Local => "local",
        }
    }
}

/// The files of one scope, and the `beckon` they should run.
#[derive(Debug, Clone)]
pub struct Setup {
    /// Where the hooks and the permission go.
    pub settings: PathBuf,
    /// The file holding the MCP server.
    pub servers: PathBuf,
    /// Inside it, the project whose servers these are (local scope), else its root.
    pub project: Option<String>,
    /// The `beckon` command, by its full path.
    pub program: String,
    /// The scope.
    pub scope: Scope,
}

/// What happened to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The file (and the project inside it, for the local scope's servers).
    pub place: String,
    /// What Beckon's entries there are.
    pub what: &'static str,
    /// Whether it changed (or would, on a dry run).
    pub changed: bool,
}

/// What connecting or disconnecting did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The settings file, then the servers file.
    pub changes: Vec<Change>,
}

impl Setup {
    /// The files of `scope` for a person whose home is `home`, working in `project`, with
    /// Claude Code's `CLAUDE_CONFIG_DIR` (when set) holding its user files.
    pub fn new(scope: Scope, home: &Path, config_dir: Option<&Path>, project: &Path, program: &str) -> Setup {
        let user_file = config_dir.unwrap_or(home).join(".claude.json");
        let user_dir = config_dir.map(Path::to_path_buf).unwrap_or_else(|| home.join(".claude"));
        let (settings, servers, inside) = match scope {
            Scope::User => (user_dir.join("settings.json"), user_file, None),
            Scope::Project => (project.join(".claude").join("settings.json"), project.join(".mcp.json"), None),
            Scope::Local => {
                (project.join(".claude").join("settings.local.json"), user_file, Some(project.display().to_string()))
            }
        };
        Setup { settings, servers, project: inside, program: program.to_owned(), scope }
    }

    /// The files of `scope` as this process sees them: `HOME`, `CLAUDE_CONFIG_DIR` and the
    /// current folder.
    pub fn from_environment(scope: Scope, program: &str) -> Result<Setup> {
        let home = std::env::var_os("HOME").map(PathBuf::from).ok_or_else(|| Error::Place("HOME is not set".into()))?;
        let config_dir = std::env::var_os("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()).map(PathBuf::from);
        let project =
            std::env::current_dir().map_err(|err| Error::Place(format!("cannot read the current folder: {err}")))?;
        Ok(Setup::new(scope, &home, config_dir.as_deref(), &project, program))
    }

    /// Adds Beckon (or, with `remove`, takes it out); on a `dry_run` writes nothing.
    pub fn apply(&self, remove: bool, dry_run: bool) -> Result<Report> {
        let settings_changed = edit(&self.settings, dry_run, |value| {
            if remove { settings::remove_settings(value) } else { settings::add_settings(value, &self.program) }
        })?;
        let servers_changed = edit(&self.servers, dry_run, |root| {
            in_project(root, self.project.as_deref(), |holder| {
                if remove { settings::remove_server(holder) } else { settings::add_server(holder, &self.program) }
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
        Ok(settings::state(&settings_value, &holder, &self.program))
    }
}

fn read_json(path: &Path) -> Result<Option<Value>> {
    match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => Ok(Some(json!({}))),
        Ok(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|err| Error::NotJson { path: path.display().to_string(), detail: err.to_string() }),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(Error::Io { action: "cannot read", path: path.display().to_string(), detail: err.to_string() }),
    }
}

/// Writes `value` to `path` through a temporary file and a rename, keeping the file's mode
/// (a new one is readable by its owner only, as Claude Code's own files are).
fn write_json(path: &Path, value: &Value) -> Result<()> {
    let fail = |err: std::io::Error| Error::Io {
        action: "cannot write",
        path: path.display().to_string(),
        detail: err.to_string(),
    };
    let folder = path.parent().ok_or_else(|| Error::Place(format!("{} has no folder", path.display())))?;
    std::fs::create_dir_all(folder).map_err(fail)?;
    let mut text = serde_json::to_string_pretty(value).map_err(|err| fail(std::io::Error::other(err)))?;
    text.push('\n');
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("settings");
    let temporary = folder.join(format!(".{name}.beckon-{}", std::process::id()));
    let written = (|| {
        let mut file = std::fs::File::create(&temporary)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(path).map(|m| m.permissions().mode() & 0o777).unwrap_or(0o600);
            file.set_permissions(std::fs::Permissions::from_mode(mode))?;
        }
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&temporary, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written.map_err(fail)
}

/// One file's edit: read, change, and (unless a dry run) write when it changed.
fn edit(path: &Path, dry_run: bool, change: impl FnOnce(&mut Value) -> bool) -> Result<bool> {
    let mut value = read_json(path)?.unwrap_or_else(|| json!({}));
    if !change(&mut value) {
        return Ok(false);
    }
    if !dry_run {
        write_json(path, &value)?;
    }
    Ok(true)
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
