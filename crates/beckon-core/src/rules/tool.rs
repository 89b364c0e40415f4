//! What kind of tool an approval asks for, as the agents name them, and the parts of its input
//! a rule looks at: the shell command, the file path, the folder it runs in.

use serde_json::{Map, Value};

/// What a tool does, as far as rules care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ToolKind {
    /// Runs a POSIX shell command (`Bash`, `bash`, `shell`, `run_shell_command`).
    Shell,
    /// Runs a command in a shell Beckon does not read (PowerShell, cmd).
    OtherShell,
    /// Changes a file (`Edit`, `Write`, `edit`, `write_file`, …).
    FileWrite,
    /// Reads a file (`Read`, `view`, `read_file`, …).
    FileRead,
    /// Touches folders outside the project (OpenCode's `external_directory`).
    Outside,
    /// An MCP server's tool (`mcp__github__create_issue`, Copilot's `github/create_issue`).
    Mcp,
    /// Anything else.
    Other,
}

const SHELLS: [&str; 12] = [
    "bash",
    "shell",
    "sh",
    "zsh",
    "run_shell_command",
    "local_shell",
    "exec_command",
    "execute_command",
    "run_command",
    "terminal",
    "run_in_terminal",
    "container.exec",
];
const OTHER_SHELLS: [&str; 4] = ["powershell", "pwsh", "cmd", "run_powershell"];
const FILE_WRITES: [&str; 14] = [
    "apply_patch",
    "patch",
    "edit",
    "write",
    "multiedit",
    "notebookedit",
    "create",
    "write_file",
    "replace",
    "edit_file",
    "create_file",
    "str_replace",
    "str_replace_editor",
    "insert",
];
const FILE_READS: [&str; 5] = ["read", "view", "read_file", "notebookread", "open_file"];

/// The kind of the tool named `name` (any case).
pub(crate) fn kind(name: &str) -> ToolKind {
    let lower = name.to_ascii_lowercase();
    let lower = lower.as_str();
    if SHELLS.contains(&lower) {
        ToolKind::Shell
    } else if OTHER_SHELLS.contains(&lower) {
        ToolKind::OtherShell
    } else if FILE_WRITES.contains(&lower) {
        ToolKind::FileWrite
    } else if FILE_READS.contains(&lower) {
        ToolKind::FileRead
    } else if lower == "external_directory" {
        ToolKind::Outside
    } else if is_mcp(name) {
        ToolKind::Mcp
    } else {
        ToolKind::Other
    }
}

/// Whether `name` is an MCP server's tool: `mcp__server__tool`, or Copilot's `server/tool`.
fn is_mcp(name: &str) -> bool {
    let plain = |part: &str| !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    if let Some(rest) = name.strip_prefix("mcp__") {
        return rest.split_once("__").is_some_and(|(server, tool)| plain(server) && plain(tool));
    }
    name.split_once('/').is_some_and(|(server, tool)| plain(server) && plain(tool))
}

/// Input fields that hold the command a shell tool runs.
const COMMAND_FIELDS: [&str; 5] = ["command", "cmd", "fullCommandText", "script", "commands"];
/// Input fields that hold the file a file tool works on.
const PATH_FIELDS: [&str; 6] = ["file_path", "filePath", "filepath", "path", "notebook_path", "absolute_path"];
/// Input fields that name the folder a command runs in.
const FOLDER_FIELDS: [&str; 5] = ["workdir", "cwd", "dir", "directory", "working_directory"];

/// Every command text in a shell tool's input (`command` as text or as an argument list,
/// Copilot's `fullCommandText` and `commands`, OpenCode's `patterns`), or `None` when there is
/// none or one has a shape Beckon does not read.
pub(crate) fn command_texts(input: &Map<String, Value>) -> Option<Vec<String>> {
    let mut texts = Vec::new();
    for field in COMMAND_FIELDS.iter().chain(["patterns"].iter()) {
        match input.get(*field) {
            None | Some(Value::Null) => {}
            Some(Value::String(text)) => texts.push(text.clone()),
            Some(Value::Array(items)) => {
                let words: Vec<&str> = items.iter().map(Value::as_str).collect::<Option<_>>()?;
                if *field == "command" {
                    texts.push(argv_text(&words)?);
                } else {
                    texts.extend(words.iter().map(|w| (*w).to_owned()));
                }
            }
            Some(_) => return None,
        }
    }
    let has_command = COMMAND_FIELDS.iter().any(|field| input.get(*field).is_some_and(|v| !v.is_null()));
    has_command.then_some(texts)
}

/// The one command a shell tool's input runs, when all its command fields agree.
pub(crate) fn single_command(input: &Map<String, Value>) -> Option<String> {
    let texts = command_texts(input)?;
    let main: Vec<&String> = texts.iter().take(texts.len() - patterns_len(input)).collect();
    let first = main.first()?;
    main.iter().all(|text| text.trim() == first.trim()).then(|| first.trim().to_owned())
}

fn patterns_len(input: &Map<String, Value>) -> usize {
    input.get("patterns").and_then(Value::as_array).map_or(0, Vec::len)
}

/// An argument list as the command text it stands for: the script of `bash -lc SCRIPT`, or the
/// words joined when every one is plain.
fn argv_text(words: &[&str]) -> Option<String> {
    if let [shell, flag, script] = words
        && is_shell_program(shell)
        && flag.starts_with('-')
        && flag.contains('c')
    {
        return Some((*script).to_owned());
    }
    words.iter().all(|w| super::command::is_plain(w)).then(|| words.join(" "))
}

/// Whether `program` (a path or name) is a POSIX-like shell.
pub(crate) fn is_shell_program(program: &str) -> bool {
    let base = program.rsplit('/').next().unwrap_or(program).to_ascii_lowercase();
    matches!(base.as_str(), "sh" | "bash" | "zsh" | "dash" | "ksh" | "mksh" | "ash" | "fish" | "csh" | "tcsh")
}

/// The one file a file tool's input names, when its path fields agree; `Err(())` when they
/// disagree or one is not text, `Ok(None)` when there is none.
pub(crate) fn file_path(input: &Map<String, Value>) -> Result<Option<&str>, ()> {
    let mut found: Option<&str> = None;
    for field in PATH_FIELDS {
        match input.get(field) {
            None | Some(Value::Null) => {}
            Some(Value::String(path)) => match found {
                Some(seen) if seen != path => return Err(()),
                _ => found = Some(path),
            },
            Some(_) => return Err(()),
        }
    }
    Ok(found)
}

/// The folders a shell tool's input says it runs in; `Err(())` when one is not text.
pub(crate) fn folders(input: &Map<String, Value>) -> Result<Vec<&str>, ()> {
    let mut found = Vec::new();
    for field in FOLDER_FIELDS {
        match input.get(field) {
            None | Some(Value::Null) => {}
            Some(Value::String(path)) => found.push(path.as_str()),
            Some(_) => return Err(()),
        }
    }
    Ok(found)
}
