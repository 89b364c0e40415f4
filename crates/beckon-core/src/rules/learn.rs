//! The rule an allowed call would teach: the command's leading words, the file's folder, or the
//! MCP tool, in the call's project. Nothing is offered for a call no rule may cover.

use super::command::{is_plain, simple_words};
use super::destructive::{WRAPPERS, command_reason};
use super::path::{guarded, inside, normalize_absolute};
use super::tool::{self, ToolKind, file_path, single_command};
use super::{Matcher, RuleSpec, destructive};
use crate::approval::Approval;

/// Programs whose second word names what they do (`npm test`, `cargo build`, `git status`).
const WITH_SUBCOMMAND: [&str; 44] = [
    "git",
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "npx",
    "bunx",
    "pnpx",
    "cargo",
    "go",
    "make",
    "just",
    "docker",
    "podman",
    "kubectl",
    "helm",
    "terraform",
    "tofu",
    "pip",
    "pip3",
    "uv",
    "poetry",
    "pipenv",
    "gradle",
    "./gradlew",
    "gradlew",
    "mvn",
    "./mvnw",
    "dotnet",
    "rustup",
    "brew",
    "gh",
    "deno",
    "composer",
    "bundle",
    "rake",
    "mix",
    "swift",
    "nx",
    "turbo",
    "task",
    "apt",
    "apt-get",
    "flutter",
];
/// Package runners whose third word names the script (`npm run build`).
const WITH_SCRIPT: [&str; 5] = ["npm", "pnpm", "yarn", "bun", "uv"];
/// Interpreters: learned only with the script they run (`python manage.py`).
const INTERPRETERS: [&str; 14] =
    ["python", "python3", "node", "ruby", "perl", "php", "bash", "sh", "zsh", "dash", "ksh", "fish", "tsx", "ts-node"];
/// Programs that run whatever they are given or act elsewhere, beyond the wrappers that run the
/// command after them: no rule is offered for them.
const NEVER: [&str; 12] =
    ["eval", "source", ".", "sudo", "doas", "su", "pkexec", "run0", "ssh", "scp", "sftp", "script"];

impl RuleSpec {
    /// The rule allowing this approval would teach, or `None` when none is safe to offer
    /// (destructive command, compound shell command, no project, unknown tool shape).
    pub fn learn(approval: &Approval) -> Option<RuleSpec> {
        let project = normalize_absolute(approval.project.as_deref()?)?;
        if destructive(approval).is_some() {
            return None;
        }
        let matcher = match tool::kind(&approval.tool_name) {
            ToolKind::Shell => Matcher::Command { prefix: prefix(&single_command(&approval.input)?)? },
            ToolKind::FileWrite | ToolKind::FileRead => {
                let relative = inside(&project, file_path(&approval.input).ok()??)?;
                if guarded(&relative).is_some() {
                    return None;
                }
                let folder = relative.rsplit_once('/').map_or("", |(folder, _)| folder);
                Matcher::Path { under: if folder.is_empty() { ".".to_owned() } else { folder.to_owned() } }
            }
            ToolKind::Mcp => Matcher::Tool,
            ToolKind::OtherShell | ToolKind::Outside | ToolKind::Other => return None,
        };
        let rule = RuleSpec { tool: approval.tool_name.clone(), matcher, project };
        rule.covers(approval).then_some(rule)
    }
}

/// The leading words of `command` a rule would name, when it is one plain simple command.
pub(crate) fn prefix(command: &str) -> Option<String> {
    let words = simple_words(command)?;
    let first = words.first()?;
    if !is_plain(first) || first.starts_with('-') || first.contains('=') {
        return None;
    }
    let name = first.to_ascii_lowercase();
    if NEVER.contains(&name.as_str()) || WRAPPERS.contains(&name.as_str()) {
        return None;
    }
    let word = |i: usize| words.get(i).filter(|w| is_plain(w) && !w.starts_with('-'));
    let taken: Vec<&String> = if INTERPRETERS.contains(&name.as_str()) {
        let script = word(1).filter(|s| !s.split('/').any(|part| part == ".."))?;
        vec![first, script]
    } else if WITH_SUBCOMMAND.contains(&name.as_str()) {
        if words.get(1).is_some_and(|w| w.starts_with('-')) {
            return None;
        }
        match (word(1), word(2)) {
            (Some(sub), Some(script))
                if WITH_SCRIPT.contains(&name.as_str()) && matches!(sub.as_str(), "run" | "exec") =>
            {
                vec![first, sub, script]
            }
            (Some(sub), _) => vec![first, sub],
            (None, _) => vec![first],
        }
    } else {
        vec![first]
    };
    let prefix = taken.iter().map(|w| w.as_str()).collect::<Vec<_>>().join(" ");
    command_reason(&prefix).is_none().then_some(prefix)
}
