//! How an approval reads to the person: a question, a short header, a Markdown preview of
//! what the call would do, and what "Allow always" covers.
//!
//! The preview quotes model-written text inside code fences longer than any backtick run in
//! it, so nothing in it is read as Markdown (no links, images or HTML), and it is bounded:
//! the window shows the first [`PREVIEW_MAX_BYTES`] and says how much was left out.

use serde_json::{Map, Value};

use super::{Approval, ApprovalChoice};
use crate::limits::{DESCRIPTION_MAX_BYTES, HEADER_MAX_CHARS, PREVIEW_MAX_BYTES};
use crate::question::{ChoiceQuestion, QuestionOption};
use crate::text::escape_refused;

/// Longest file path or URL quoted in the question text, in characters.
const QUOTED_MAX_CHARS: usize = 200;

impl Approval {
    /// The question the person is asked, with its options and the preview on "Allow".
    pub fn question(&self) -> ChoiceQuestion {
        let options = self
            .choices()
            .into_iter()
            .map(|choice| QuestionOption {
                label: choice.label().to_owned(),
                description: Some(self.option_description(choice)),
                preview: (choice == ApprovalChoice::Allow).then(|| self.preview()),
            })
            .collect();
        ChoiceQuestion { question: self.question_text(), header: Some(self.header()), options, multi_select: false }
    }

    /// What the question says: the call in a few words.
    pub fn question_text(&self) -> String {
        let text = |key: &str| self.input.get(key).and_then(Value::as_str).map(|s| short(s, QUOTED_MAX_CHARS));
        let who = self.by.as_deref().map(|by| short(by, QUOTED_MAX_CHARS)).unwrap_or_else(|| "Claude".to_owned());
        let tool = self.tool_name.as_str();
        let sentence = match (tool, mcp_parts(tool)) {
            (name, _) if name.eq_ignore_ascii_case("bash") => format!("Allow {who} to run this command?"),
            ("Edit" | "MultiEdit", _) => match text("file_path") {
                Some(path) => format!("Allow {who} to edit {path}?"),
                None => format!("Allow {who} to edit a file?"),
            },
            ("Write", _) => match text("file_path") {
                Some(path) => format!("Allow {who} to write {path}?"),
                None => format!("Allow {who} to write a file?"),
            },
            ("WebFetch", _) => match text("url") {
                Some(url) => format!("Allow {who} to fetch {url}?"),
                None => format!("Allow {who} to fetch a web page?"),
            },
            (_, Some((server, tool))) => format!("Allow {who} to use {tool} from the MCP server {server}?"),
            (tool, None) => format!("Allow {who} to use {}?", short(tool, QUOTED_MAX_CHARS)),
        };
        escape_refused(&sentence).replace(['\n', '\t'], " ")
    }

    /// The chip: the tool's name, or "MCP tool", cut to the header limit.
    pub fn header(&self) -> String {
        let name = if mcp_parts(&self.tool_name).is_some() { "MCP tool" } else { self.tool_name.as_str() };
        short(name, HEADER_MAX_CHARS)
    }

    /// What "Allow always" would remember, in words; `None` when it is not offered.
    pub fn always_covers(&self) -> Option<String> {
        if !self.offers_always() {
            return None;
        }
        let parts: Vec<String> = self.suggestions.iter().filter_map(describe_suggestion).collect();
        let text = if parts.is_empty() {
            "Allow now, and remember what Claude Code suggests so it does not ask again".to_owned()
        } else {
            format!("Allow now, and {}", parts.join("; "))
        };
        Some(short(&escape_refused(&text).replace(['\n', '\t'], " "), DESCRIPTION_MAX_BYTES / 4))
    }

    fn option_description(&self, choice: ApprovalChoice) -> String {
        match choice {
            ApprovalChoice::Allow => "Allow this call once".to_owned(),
            ApprovalChoice::AllowAlways => self.always_covers().unwrap_or_default(),
            ApprovalChoice::Deny => format!(
                "Refuse it; a comment is passed to {} as the reason ({})",
                self.by.as_deref().unwrap_or("Claude"),
                choice.label()
            ),
        }
    }

    /// The call as Markdown: a Bash command and its description, an edit as a diff, a written
    /// file's content, a URL, an MCP tool's arguments, or any other tool's input as JSON.
    pub fn preview(&self) -> String {
        let input = &self.input;
        let text = |key: &str| input.get(key).and_then(Value::as_str);
        let mut out = String::new();
        match self.tool_name.as_str() {
            name if name.eq_ignore_ascii_case("bash") => {
                fenced(&mut out, "sh", text("command").unwrap_or_default());
                if let Some(description) = text("description") {
                    out.push_str("\n\n");
                    fenced(&mut out, "text", description);
                }
            }
            "Edit" => {
                labelled(&mut out, "File", text("file_path"));
                fenced(
                    &mut out,
                    "diff",
                    &diff(text("old_string").unwrap_or_default(), text("new_string").unwrap_or_default()),
                );
            }
            "MultiEdit" => {
                labelled(&mut out, "File", text("file_path"));
                let edits = input.get("edits").and_then(Value::as_array).cloned().unwrap_or_default();
                let mut all = String::new();
                for edit in &edits {
                    let side = |key: &str| edit.get(key).and_then(Value::as_str).unwrap_or_default();
                    all.push_str(&diff(side("old_string"), side("new_string")));
                    all.push_str("\n@@\n");
                }
                fenced(&mut out, "diff", all.trim_end_matches("\n@@\n"));
            }
            "Write" => {
                labelled(&mut out, "File", text("file_path"));
                fenced(&mut out, "", text("content").unwrap_or_default());
            }
            "WebFetch" => {
                labelled(&mut out, "URL", text("url"));
                if let Some(prompt) = text("prompt") {
                    fenced(&mut out, "text", prompt);
                }
            }
            name => {
                if let Some((server, tool)) = mcp_parts(name) {
                    labelled(&mut out, "MCP server", Some(server));
                    labelled(&mut out, "Tool", Some(tool));
                } else {
                    labelled(&mut out, "Tool", Some(name));
                }
                fenced(&mut out, "json", &pretty(input));
            }
        }
        bounded(out)
    }
}

/// `mcp__<server>__<tool>` split into its server and tool.
fn mcp_parts(name: &str) -> Option<(&str, &str)> {
    name.strip_prefix("mcp__")?.split_once("__").filter(|(server, tool)| !server.is_empty() && !tool.is_empty())
}

/// Appends `**label:** value` (the value as inline code) and a blank line.
fn labelled(out: &mut String, label: &str, value: Option<&str>) {
    let Some(value) = value else { return };
    let value = escape_refused(value).replace(['\n', '\t'], " ");
    let ticks = "`".repeat(longest_backtick_run(&value) + 1);
    out.push_str(&format!("**{label}:** {ticks} {value} {ticks}\n\n"));
}

/// Appends `text` as a fenced code block that nothing inside can close.
fn fenced(out: &mut String, language: &str, text: &str) {
    let text = escape_refused(text);
    let fence = "`".repeat((longest_backtick_run(&text) + 1).max(3));
    out.push_str(&format!("{fence}{language}\n{text}\n{fence}"));
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// A line diff: every old line removed, every new line added, shared leading and trailing
/// lines kept as context.
fn diff(old: &str, new: &str) -> String {
    let old: Vec<&str> = old.lines().collect();
    let new: Vec<&str> = new.lines().collect();
    let head = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let tail = old[head..].iter().rev().zip(new[head..].iter().rev()).take_while(|(a, b)| a == b).count();
    let mut out = Vec::new();
    out.extend(old[..head].iter().map(|line| format!("  {line}")));
    out.extend(old[head..old.len() - tail].iter().map(|line| format!("- {line}")));
    out.extend(new[head..new.len() - tail].iter().map(|line| format!("+ {line}")));
    out.extend(old[old.len() - tail..].iter().map(|line| format!("  {line}")));
    out.join("\n")
}

fn pretty(input: &Map<String, Value>) -> String {
    serde_json::to_string_pretty(input).unwrap_or_default()
}

/// Cuts the preview to fit, closing an open fence and saying how much was left out.
fn bounded(preview: String) -> String {
    if preview.len() <= PREVIEW_MAX_BYTES {
        return preview;
    }
    // Room for the closing fence and the note.
    let mut cut = PREVIEW_MAX_BYTES - 256;
    while !preview.is_char_boundary(cut) {
        cut -= 1;
    }
    let kept = &preview[..cut];
    let left = preview.len() - cut;
    let fence_open = kept.lines().filter(|line| line.starts_with("```")).count() % 2 == 1;
    let fence = kept.lines().rev().find(|line| line.starts_with("```")).map(|line| line.trim_end_matches(|c| c != '`'));
    let mut out = kept.to_owned();
    if let (true, Some(fence)) = (fence_open, fence) {
        out.push('\n');
        out.push_str(fence);
    }
    out.push_str(&format!("\n\n*… {left} more bytes not shown*"));
    out
}

fn describe_suggestion(suggestion: &Value) -> Option<String> {
    let kind = suggestion.get("type")?.as_str()?;
    let place = match suggestion.get("destination").and_then(Value::as_str) {
        Some("session") => " for this session",
        Some("localSettings") => " in this project (your local settings)",
        Some("projectSettings") => " in this project (shared settings)",
        Some("userSettings") => " in every project",
        _ => "",
    };
    let what = match kind {
        "addRules" | "replaceRules" => {
            let rules: Vec<String> = suggestion
                .get("rules")?
                .as_array()?
                .iter()
                .filter_map(|rule| {
                    let tool = rule.get("toolName")?.as_str()?;
                    Some(match rule.get("ruleContent").and_then(Value::as_str) {
                        Some(content) => format!("{tool}({content})"),
                        None => tool.to_owned(),
                    })
                })
                .collect();
            let behavior = suggestion.get("behavior").and_then(Value::as_str).unwrap_or("allow");
            format!("{behavior} {}", rules.join(", "))
        }
        "addDirectories" => {
            let dirs: Vec<&str> = suggestion.get("directories")?.as_array()?.iter().filter_map(Value::as_str).collect();
            format!("allow access to {}", dirs.join(", "))
        }
        "setMode" => format!("switch to the {} permission mode", suggestion.get("mode")?.as_str()?),
        _ => return None,
    };
    Some(format!("{what}{place}"))
}

/// The first `max` characters of `text`, with an ellipsis when cut.
fn short(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut head: String = text.chars().take(max.saturating_sub(1)).collect();
    head.push('…');
    head
}
