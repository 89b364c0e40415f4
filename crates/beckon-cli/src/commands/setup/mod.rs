//! `beckon setup claude-code`: connects Claude Code to Beckon by writing its configuration —
//! the MCP server (`beckon mcp`), the hooks (`beckon hook claude-code`) and the permission for
//! Beckon's tools — or takes that out again with `--remove`. It keeps every other setting,
//! writes each file atomically, and says what it changed.

pub mod claude_code;

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::cli::{Scope, SetupArgs, SetupTarget};
use crate::error::{CliError, CliResult, Exit};

/// The files one scope touches.
struct Files {
    /// Where the hooks and the permission go.
    settings: PathBuf,
    /// The file holding the MCP server.
    servers: PathBuf,
    /// Inside it, the project whose servers these are (local scope), else its root.
    project: Option<String>,
}

fn files(scope: Scope) -> CliResult<Files> {
    let home = std::env::var_os("HOME").map(PathBuf::from).ok_or_else(|| CliError::Io("HOME is not set".into()))?;
    // Claude Code keeps its user files in CLAUDE_CONFIG_DIR when that is set.
    let config_dir = std::env::var_os("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()).map(PathBuf::from);
    let user_file = config_dir.clone().unwrap_or_else(|| home.clone()).join(".claude.json");
    let user_dir = config_dir.unwrap_or_else(|| home.join(".claude"));
    let project =
        std::env::current_dir().map_err(|err| CliError::Io(format!("cannot read the current folder: {err}")))?;
    Ok(match scope {
        Scope::User => Files { settings: user_dir.join("settings.json"), servers: user_file, project: None },
        Scope::Project => Files {
            settings: project.join(".claude").join("settings.json"),
            servers: project.join(".mcp.json"),
            project: None,
        },
        Scope::Local => Files {
            settings: project.join(".claude").join("settings.local.json"),
            servers: user_file,
            project: Some(project.display().to_string()),
        },
    })
}

/// The `beckon` Claude Code should run: this one, by its full path.
fn this_program() -> CliResult<String> {
    let path = std::env::current_exe().map_err(|err| CliError::Io(format!("cannot tell where beckon is: {err}")))?;
    let path = path.canonicalize().unwrap_or(path);
    path.to_str().map(str::to_owned).ok_or_else(|| CliError::Io(format!("{} is not UTF-8", path.display())))
}

fn read_json(path: &Path) -> CliResult<Option<Value>> {
    match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => Ok(Some(json!({}))),
        Ok(text) => serde_json::from_str(&text).map(Some).map_err(|err| {
            CliError::Input(format!("{} is not valid JSON ({err}); fix it first, nothing was changed", path.display()))
        }),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(CliError::Io(format!("cannot read {}: {err}", path.display()))),
    }
}

/// Writes `value` to `path` through a temporary file and a rename, keeping the file's mode
/// (a new one is readable by its owner only, as Claude Code's own files are).
fn write_json(path: &Path, value: &Value) -> CliResult<()> {
    let fail = |err: std::io::Error| CliError::Io(format!("cannot write {}: {err}", path.display()));
    let folder = path.parent().ok_or_else(|| CliError::Io(format!("{} has no folder", path.display())))?;
    std::fs::create_dir_all(folder).map_err(fail)?;
    let mut text = serde_json::to_string_pretty(value).map_err(|err| CliError::Io(err.to_string()))?;
    text.push('\n');
    let temporary = folder.join(format!(
        ".{}.beckon-{}",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("settings"),
        std::process::id()
    ));
    let mut file = std::fs::File::create(&temporary).map_err(fail)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).map(|m| m.permissions().mode() & 0o777).unwrap_or(0o600);
        file.set_permissions(std::fs::Permissions::from_mode(mode)).map_err(fail)?;
    }
    file.write_all(text.as_bytes()).map_err(fail)?;
    file.sync_all().map_err(fail)?;
    std::fs::rename(&temporary, path).map_err(|err| {
        let _ = std::fs::remove_file(&temporary);
        fail(err)
    })
}

/// One file's edit: read, change, and (unless a dry run) write when it changed.
fn edit(path: &Path, dry_run: bool, change: impl FnOnce(&mut Value) -> bool) -> CliResult<bool> {
    let existing = read_json(path)?;
    let mut value = existing.clone().unwrap_or_else(|| json!({}));
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

/// Runs `beckon setup <target>`.
pub fn run(args: SetupArgs) -> CliResult<Exit> {
    let SetupTarget::ClaudeCode(args) = args.target;
    let files = files(args.scope)?;
    let program = this_program()?;
    let project = files.project.as_deref();
    if args.check {
        let settings = read_json(&files.settings)?.unwrap_or(json!({}));
        let mut root = read_json(&files.servers)?.unwrap_or(json!({}));
        let mut holder = json!({});
        in_project(&mut root, project, |found| {
            holder = found.clone();
            false
        });
        let state = match claude_code::state(&settings, &holder, &program) {
            claude_code::State::Connected => "connected",
            claude_code::State::OutOfDate => "out of date (run beckon setup claude-code again)",
            claude_code::State::NotConnected => "not connected",
        };
        println!("Claude Code ({} scope): {state}", args.scope.as_str());
        return Ok(Exit::Success);
    }
    let settings_changed = edit(&files.settings, args.dry_run, |settings| {
        if args.remove { claude_code::remove_settings(settings) } else { claude_code::add_settings(settings, &program) }
    })?;
    let servers_changed = edit(&files.servers, args.dry_run, |root| {
        in_project(root, project, |holder| {
            if args.remove { claude_code::remove_server(holder) } else { claude_code::add_server(holder, &program) }
        })
    })?;
    let verb = match (args.remove, args.dry_run) {
        (false, false) => "Added Beckon to",
        (false, true) => "Would add Beckon to",
        (true, false) => "Removed Beckon from",
        (true, true) => "Would remove Beckon from",
    };
    let what = if args.remove {
        ""
    } else {
        " (hooks for permission prompts and AskUserQuestion, and permission for mcp__beckon)"
    };
    let server_place = match project {
        Some(project) => format!("{} (project {project})", files.servers.display()),
        None => files.servers.display().to_string(),
    };
    for (changed, path, detail) in [
        (settings_changed, files.settings.display().to_string(), what),
        (servers_changed, server_place, " (the MCP server \"beckon\")"),
    ] {
        if changed {
            println!("{verb} {path}{detail}");
        } else {
            println!("Unchanged: {path}");
        }
    }
    if !args.remove && !args.dry_run {
        println!(
            "Claude Code's prompts now reach Beckon while it runs; restart running Claude Code sessions to pick this up."
        );
    }
    Ok(Exit::Success)
}
