//! Reading a hand-written rule, deciding whether a rule covers a call, and naming a rule for
//! counting and for people.

use serde_json::Value;

use super::command::{has_operators, is_plain, simple_words};
use super::destructive::command_reason;
use super::path::{guarded, inside, is_absolute, normalize_absolute};
use super::tool::{self, ToolKind, command_texts, file_path, folders};
use super::{Matcher, PREFIX_MAX_BYTES, RuleSpec, destructive};
use crate::approval::{Approval, PLACE_MAX_BYTES, TOOL_NAME_MAX_BYTES};
use crate::json_reader::object;
use crate::problem::Problems;
use crate::text::{self, Lines};

const FIELDS: [&str; 3] = ["tool", "matcher", "project"];
const MATCHER_FIELDS: [&str; 3] = ["kind", "prefix", "under"];
/// Programs that only run other commands: a prefix must name what they run too.
const LONE_REFUSED: [&str; 30] = [
    "env", "command", "builtin", "exec", "eval", "source", ".", "nohup", "time", "nice", "timeout", "watch", "xargs",
    "parallel", "flock", "setsid", "busybox", "ssh", "sh", "bash", "zsh", "dash", "ksh", "fish", "python", "python3",
    "node", "perl", "ruby", "php",
];

impl RuleSpec {
    /// Reads and checks a hand-written rule given as JSON `{tool, matcher: {kind, …}, project}`,
    /// reporting every problem with its path under `path`. Refuses empty prefixes, prefixes
    /// that are themselves destructive, shell operators in a prefix, `..` escapes in paths,
    /// tool matchers on shell and file tools, and over-long text.
    pub fn parse(value: &Value, path: &str) -> Result<RuleSpec, Problems> {
        let mut problems = Problems::new();
        let Some(fields) = object(value, path, &FIELDS, &mut problems) else { return Err(problems) };
        let tool = fields.required_string("tool", &mut problems).unwrap_or_default();
        if fields.has("tool") {
            text::check_name(&fields.path("tool"), tool, TOOL_NAME_MAX_BYTES, &mut problems);
        }
        let project = fields
            .required_string("project", &mut problems)
            .map(|p| read_project(p, &fields.path("project"), &mut problems));
        let project = project.flatten();
        let matcher = if fields.require("matcher", &mut problems) {
            fields
                .get("matcher")
                .and_then(|m| read_matcher(m, &fields.path("matcher"), tool, project.as_deref(), &mut problems))
        } else {
            None
        };
        match (matcher, project) {
            (Some(matcher), Some(project)) if problems.is_empty() => {
                Ok(RuleSpec { tool: tool.to_owned(), matcher, project })
            }
            _ => {
                if problems.is_empty() {
                    problems.push(path, "is not a rule Beckon can read");
                }
                Err(problems)
            }
        }
    }

    /// Whether this rule allows `approval`. Never true for a destructive call, never across
    /// projects or tools, never for a shell command holding operators, redirections or
    /// substitutions (`;`, `&&`, `||`, `|`, `>`, `<`, backticks, `$`, newlines, `&`).
    pub fn covers(&self, approval: &Approval) -> bool {
        let Some(project) = approval.project.as_deref().and_then(normalize_absolute) else { return false };
        if approval.tool_name != self.tool || normalize_absolute(&self.project).as_deref() != Some(project.as_str()) {
            return false;
        }
        if destructive(approval).is_some() {
            return false;
        }
        let kind = tool::kind(&approval.tool_name);
        match &self.matcher {
            Matcher::Command { prefix } => kind == ToolKind::Shell && covers_command(prefix, approval, &project),
            Matcher::Path { under } => {
                matches!(kind, ToolKind::FileWrite | ToolKind::FileRead) && covers_path(under, approval, &project)
            }
            Matcher::Tool => matches!(kind, ToolKind::Mcp | ToolKind::Other),
        }
    }

    /// A stable text key: two approvals teaching the same rule give the same key.
    pub fn key(&self) -> String {
        let project = normalize_absolute(&self.project).unwrap_or_else(|| self.project.clone());
        let (kind, value) = match &self.matcher {
            Matcher::Command { prefix } => ("command", prefix.split_whitespace().collect::<Vec<_>>().join(" ")),
            Matcher::Path { under } => ("path", under.clone()),
            Matcher::Tool => ("tool", String::new()),
        };
        serde_json::to_string(&[project.as_str(), self.tool.as_str(), kind, value.as_str()]).unwrap_or_default()
    }

    /// Short text for people: "`npm test` in shop", "edits under `src/` in shop",
    /// "`mcp__github__create_issue` in shop".
    pub fn describe(&self) -> String {
        let project = self.project_name();
        match &self.matcher {
            Matcher::Command { prefix } => format!("`{prefix}` in {project}"),
            Matcher::Path { under } => {
                let verb = if tool::kind(&self.tool) == ToolKind::FileRead { "reads" } else { "edits" };
                if under == "." {
                    format!("{verb} anywhere in {project}")
                } else {
                    format!("{verb} under `{under}/` in {project}")
                }
            }
            Matcher::Tool => format!("`{}` in {project}", self.tool),
        }
    }

    /// The project's last folder name (`shop` for `/home/ada/shop`).
    pub fn project_name(&self) -> &str {
        self.project
            .trim_end_matches(['/', '\\'])
            .rsplit(['/', '\\'])
            .next()
            .filter(|n| !n.is_empty())
            .unwrap_or(&self.project)
    }
}

fn covers_command(prefix: &str, approval: &Approval, project: &str) -> bool {
    let wanted: Vec<&str> = prefix.split_whitespace().collect();
    let Some(texts) = command_texts(&approval.input) else { return false };
    let Ok(places) = folders(&approval.input) else { return false };
    !wanted.is_empty()
        && !texts.is_empty()
        && places.iter().all(|place| inside(project, place).is_some())
        && texts.iter().all(|text| {
            simple_words(text).is_some_and(|words| {
                words.len() >= wanted.len() && words.iter().zip(&wanted).all(|(word, want)| word == want)
            })
        })
}

fn covers_path(under: &str, approval: &Approval, project: &str) -> bool {
    let Ok(Some(path)) = file_path(&approval.input) else { return false };
    let Some(relative) = inside(project, path) else { return false };
    if guarded(&relative).is_some() || relative.is_empty() {
        return false;
    }
    under == "." || relative.strip_prefix(under).is_some_and(|rest| rest.starts_with('/'))
}

fn read_project(project: &str, path: &str, problems: &mut Problems) -> Option<String> {
    let before = problems.len();
    text::check(path, project, Lines::Single, PLACE_MAX_BYTES, problems);
    if problems.len() > before {
        return None;
    }
    if !is_absolute(project) || project.replace('\\', "/").split('/').any(|part| part == "..") {
        problems.push(path, "must be the project's absolute folder, without `..`");
        return None;
    }
    match normalize_absolute(project) {
        Some(folder) if folder.trim_end_matches('/').ends_with(':') || folder == "/" || folder == "//" => {
            problems.push(path, "must be a project folder, not the root of a disk");
            None
        }
        Some(folder) => Some(folder),
        None => {
            problems.push(path, "must be the project's absolute folder");
            None
        }
    }
}

fn read_matcher(
    value: &Value,
    path: &str,
    tool: &str,
    project: Option<&str>,
    problems: &mut Problems,
) -> Option<Matcher> {
    let fields = object(value, path, &MATCHER_FIELDS, problems)?;
    let kind = fields.required_string("kind", problems)?;
    let only = |allowed: &str, problems: &mut Problems| {
        for other in ["prefix", "under"].into_iter().filter(|f| *f != allowed && fields.has(f)) {
            problems.push(fields.path(other), format!("does not belong to a `{kind}` matcher; remove it"));
        }
    };
    let tool_kind = tool::kind(tool);
    match kind {
        "command" => {
            only("prefix", problems);
            if tool_kind != ToolKind::Shell {
                problems.push(
                    join(path, "kind"),
                    "a command matcher needs a shell tool (Bash, bash, shell, run_shell_command)",
                );
            }
            let prefix = fields.required_string("prefix", problems)?;
            read_prefix(prefix, &fields.path("prefix"), problems).map(|prefix| Matcher::Command { prefix })
        }
        "path" => {
            only("under", problems);
            if !matches!(tool_kind, ToolKind::FileWrite | ToolKind::FileRead) {
                problems.push(
                    join(path, "kind"),
                    "a path matcher needs a file tool (Edit, Write, Read, edit, write_file, …)",
                );
            }
            let under = fields.required_string("under", problems)?;
            read_under(under, &fields.path("under"), project?, problems).map(|under| Matcher::Path { under })
        }
        "tool" => {
            only("", problems);
            if !matches!(tool_kind, ToolKind::Mcp | ToolKind::Other) {
                problems.push(
                    join(path, "kind"),
                    "a tool matcher may not name a shell or file tool; use a command or path matcher",
                );
                return None;
            }
            Some(Matcher::Tool)
        }
        other => {
            problems.push(
                fields.path("kind"),
                format!("must be `command`, `path` or `tool`, not `{}`", text::quote(other, 40)),
            );
            None
        }
    }
}

fn join(path: &str, field: &str) -> String {
    crate::problem::join(path, field)
}

fn read_prefix(prefix: &str, path: &str, problems: &mut Problems) -> Option<String> {
    let before = problems.len();
    text::check(path, prefix, Lines::Single, PREFIX_MAX_BYTES, problems);
    if problems.len() > before {
        return None;
    }
    if has_operators(prefix) {
        problems.push(path, "must not hold shell operators, redirections or substitutions (; & | < > ` $ ( ))");
        return None;
    }
    let words: Vec<&str> = prefix.split_whitespace().collect();
    if !words.iter().all(|w| is_plain(w)) {
        problems.push(path, "must be plain words: letters, digits and . _ / + @ : % , = -");
        return None;
    }
    let first = words.first()?;
    if first.starts_with('-') || first.contains('=') {
        problems.push(path, "must start with the program it runs");
        return None;
    }
    if let Some(reason) = command_reason(prefix) {
        problems.push(path, format!("is itself destructive: it {reason}"));
        return None;
    }
    if words.len() == 1
        && LONE_REFUSED.contains(&first.rsplit('/').next().unwrap_or(first).to_ascii_lowercase().as_str())
    {
        problems.push(path, "names only a program that runs other commands; add what it runs");
        return None;
    }
    Some(words.join(" "))
}

fn read_under(under: &str, path: &str, project: &str, problems: &mut Problems) -> Option<String> {
    let before = problems.len();
    text::check(path, under, Lines::Single, PLACE_MAX_BYTES, problems);
    if problems.len() > before {
        return None;
    }
    if under.starts_with('~') || under.replace('\\', "/").split('/').any(|part| part == "..") {
        problems.push(path, "must be a folder inside the project, without `~` or `..`");
        return None;
    }
    let Some(relative) = inside(project, under) else {
        problems.push(path, "must be a folder inside the project");
        return None;
    };
    if guarded(&relative).is_some() {
        problems.push(path, "may not be .git, .ssh or another guarded folder");
        return None;
    }
    let relative = relative.trim_end_matches('/');
    Some(if relative.is_empty() { ".".to_owned() } else { relative.to_owned() })
}
