//! Reading an agent file: front matter between `---` lines, then the system prompt.

use serde::Deserialize;

use crate::agent::duration::parse_duration_ms;
use crate::agent::size::parse_size_bytes;
use crate::agent::{
    AgentDefinition, AgentFileError, AgentLimits, BUILTIN_TOOLS, OnTimeout, ProviderKind, QuestionPolicy,
};
use crate::conversation::ASK_USER_QUESTION;

/// Largest agent file read, in bytes.
pub const AGENT_FILE_MAX_BYTES: usize = 256 * 1024;
/// Longest question timeout an agent may set.
const MAX_TIMEOUT_MS: u64 = 365 * 86_400_000;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FrontMatter {
    name: Option<String>,
    description: Option<String>,
    provider: Option<ProviderKind>,
    model: Option<String>,
    script: Option<String>,
    #[serde(default)]
    tools: Vec<String>,
    questions: Option<bool>,
    // Read by hand: an untagged enum's error would name neither the field nor what it takes.
    question_timeout: Option<serde_norway::Value>,
    on_timeout: Option<OnTimeout>,
    default_answer: Option<String>,
    callback_url: Option<String>,
    max_turns: Option<u64>,
    max_tool_calls_per_turn: Option<u64>,
    // Read by hand, as question_timeout: a number of bytes or a size such as 100MB.
    max_workspace: Option<serde_norway::Value>,
}

impl AgentDefinition {
    /// Reads an agent file's text. Errors name the file line to look at.
    pub fn parse(text: &str) -> Result<AgentDefinition, AgentFileError> {
        if text.len() > AGENT_FILE_MAX_BYTES {
            return Err(error(None, format!("the file is {} bytes; the limit is {AGENT_FILE_MAX_BYTES}", text.len())));
        }
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let (yaml, body) = split_front_matter(text)?;
        check_characters(yaml)?;
        let front: FrontMatter = serde_norway::from_str(yaml).map_err(|err| {
            let line = err.location().map(|l| file_line(yaml, l.index()));
            let message = err.to_string();
            let message = message.split(" at line ").next().unwrap_or(&message).to_owned();
            error(line, message)
        })?;
        let line_of =
            |key: &str| yaml.lines().position(|l| l.trim_start().starts_with(&format!("{key}:"))).map(|i| i + 2);
        let name =
            front.name.ok_or_else(|| error(Some(1), "the front matter needs a name, e.g. `name: researcher`"))?;
        check_name(&name).map_err(|m| error(line_of("name"), m))?;
        let questions = front.questions.unwrap_or(true);
        for tool in &front.tools {
            if tool == ASK_USER_QUESTION {
                if !questions {
                    return Err(error(
                        line_of("tools"),
                        "lists ask_user_question but `questions: false` removes it; drop one of the two",
                    ));
                }
            } else if !BUILTIN_TOOLS.contains(&tool.as_str()) {
                return Err(error(
                    line_of("tools"),
                    format!("unknown tool {tool:?}; available: {}", BUILTIN_TOOLS.join(", ")),
                ));
            }
        }
        let timeout_ms = match front.question_timeout {
            None => None,
            Some(timeout) => {
                let ms = match timeout {
                    serde_norway::Value::Number(n) => n
                        .as_u64()
                        .and_then(|s| s.checked_mul(1000))
                        .ok_or_else(|| format!("{n} is not a whole number of seconds from 1 to 365 days")),
                    serde_norway::Value::String(text) => parse_duration_ms(&text),
                    _ => Err("must be a number of seconds or a duration such as 90s, 15m, 2h or 7d".to_owned()),
                }
                .map_err(|m| error(line_of("question_timeout"), format!("question_timeout: {m}")))?;
                if ms == 0 || ms > MAX_TIMEOUT_MS {
                    return Err(error(line_of("question_timeout"), "question_timeout must be between 1s and 365d"));
                }
                Some(ms)
            }
        };
        let on_timeout = front.on_timeout.unwrap_or_default();
        if on_timeout == OnTimeout::Default && front.default_answer.as_deref().is_none_or(|a| a.trim().is_empty()) {
            return Err(error(line_of("on_timeout"), "on_timeout: default needs a default_answer"));
        }
        if let Some(url) = &front.callback_url {
            check_url(url).map_err(|m| error(line_of("callback_url"), m))?;
        }
        let limits = read_limits(&front.max_turns, &front.max_tool_calls_per_turn, front.max_workspace.as_ref())
            .map_err(|(key, m)| error(line_of(key), m))?;
        Ok(AgentDefinition {
            name,
            description: front.description,
            provider: front.provider,
            model: front.model,
            script: front.script,
            tools: front.tools.into_iter().filter(|t| t != ASK_USER_QUESTION).collect(),
            questions,
            question_policy: QuestionPolicy { timeout_ms, on_timeout, default_answer: front.default_answer },
            callback_url: front.callback_url,
            limits,
            system_prompt: body.trim().to_owned(),
        })
    }
}

/// The budget the file sets, each limit it leaves out at its default; an error names the key.
fn read_limits(
    max_turns: &Option<u64>,
    max_tool_calls_per_turn: &Option<u64>,
    max_workspace: Option<&serde_norway::Value>,
) -> Result<AgentLimits, (&'static str, String)> {
    let mut limits = AgentLimits::default();
    let within = |key: &'static str, value: u64, (low, high): (u64, u64)| {
        if (low..=high).contains(&value) {
            Ok(value)
        } else {
            Err((key, format!("{key} must be between {low} and {high}")))
        }
    };
    let (low, high) = AgentLimits::MAX_TURNS_RANGE;
    if let Some(turns) = *max_turns {
        let turns = within("max_turns", turns, (low.into(), high.into()))?;
        limits.max_turns = u32::try_from(turns).unwrap_or(high);
    }
    let (low, high) = AgentLimits::MAX_TOOL_CALLS_RANGE;
    if let Some(calls) = *max_tool_calls_per_turn {
        let calls = within("max_tool_calls_per_turn", calls, (low.into(), high.into()))?;
        limits.max_tool_calls_per_turn = u32::try_from(calls).unwrap_or(high);
    }
    if let Some(size) = max_workspace {
        let bytes = match size {
            serde_norway::Value::Number(n) => n.as_u64().ok_or_else(|| format!("{n} is not a whole number of bytes")),
            serde_norway::Value::String(text) => parse_size_bytes(text),
            _ => Err("must be a number of bytes or a size such as 64KB, 100MB or 2GB".to_owned()),
        }
        .map_err(|m| ("max_workspace", format!("max_workspace: {m}")))?;
        let (low, high) = AgentLimits::MAX_WORKSPACE_RANGE;
        if !(low..=high).contains(&bytes) {
            return Err(("max_workspace", "max_workspace must be between 4KB and 64GB".to_owned()));
        }
        limits.max_workspace_bytes = bytes;
    }
    Ok(limits)
}

fn error(line: Option<usize>, message: impl Into<String>) -> AgentFileError {
    AgentFileError { line, message: message.into() }
}

/// Splits `---\n<yaml>\n---\n<body>`.
fn split_front_matter(text: &str) -> Result<(&str, &str), AgentFileError> {
    let missing = || {
        error(Some(1), "an agent file starts with a front matter block: a line `---`, YAML fields, and another `---`")
    };
    let first_line_end = text.find('\n').ok_or_else(missing)?;
    if text[..first_line_end].trim_end() != "---" {
        return Err(missing());
    }
    let rest = &text[first_line_end + 1..];
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return Ok((&rest[..offset], &rest[offset + line.len()..]));
        }
        offset += line.len();
    }
    Err(error(None, "the front matter is not closed: add a line `---` after the last field"))
}

/// The file line holding byte `index` of the front matter, as editors count lines: YAML's own
/// count also breaks lines at U+0085, U+2028 and U+2029, which editors show inside a line.
fn file_line(yaml: &str, index: usize) -> usize {
    let before = &yaml.as_bytes()[..index.min(yaml.len())];
    let breaks = before
        .iter()
        .enumerate()
        .filter(|&(i, &b)| b == b'\n' || (b == b'\r' && yaml.as_bytes().get(i + 1) != Some(&b'\n')))
        .count();
    // The front matter starts on the file's second line.
    breaks + 2
}

/// YAML allows no control characters but tab and line breaks; the parser would report one on
/// the line before, so find it here and name its own line and column.
fn check_characters(yaml: &str) -> Result<(), AgentFileError> {
    let found = yaml.char_indices().find(|&(_, c)| c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\u{85}'));
    let Some((index, c)) = found else { return Ok(()) };
    let line_start = yaml[..index].rfind(['\n', '\r']).map_or(0, |at| at + 1);
    let column = yaml[line_start..index].chars().count() + 1;
    Err(error(
        Some(file_line(yaml, index)),
        format!("control characters are not allowed in the front matter (U+{:04X} in column {column})", u32::from(c)),
    ))
}

fn check_name(name: &str) -> Result<(), String> {
    let valid = !name.is_empty()
        && name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    if valid {
        Ok(())
    } else {
        // Quoted in part: a name of thousands of characters is not repeated whole.
        Err(format!(
            "name {} must be 1 to 64 lower-case letters, digits, '-' or '_', starting with a letter or digit",
            crate::text::quote(name, 80)
        ))
    }
}

fn check_url(url: &str) -> Result<(), String> {
    let has_scheme = url.starts_with("https://") || url.starts_with("http://");
    if !has_scheme || url.len() > 2048 || url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!("callback_url {url:?} must be an http:// or https:// URL without spaces"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FULL: &str = "---\nname: researcher\ndescription: Finds sources\nprovider: anthropic\nmodel: claude-sonnet-4-5\ntools: [read_file, spawn_agent]\nquestion_timeout: 2h\non_timeout: default\ndefault_answer: Use your judgement\ncallback_url: https://example.com/hook\nmax_turns: 20\nmax_tool_calls_per_turn: 4\nmax_workspace: 10MB\n---\nYou are careful.\n\nCite sources.\n";

    #[test]
    fn reads_every_field() {
        let agent = AgentDefinition::parse(FULL).unwrap();
        assert_eq!(agent.name, "researcher");
        assert_eq!(agent.provider, Some(ProviderKind::Anthropic));
        assert_eq!(agent.model.as_deref(), Some("claude-sonnet-4-5"));
        assert_eq!(agent.tools, vec!["read_file", "spawn_agent"]);
        assert!(agent.questions);
        assert_eq!(agent.question_policy.timeout_ms, Some(7_200_000));
        assert_eq!(agent.question_policy.on_timeout, OnTimeout::Default);
        assert_eq!(agent.question_policy.default_answer.as_deref(), Some("Use your judgement"));
        assert_eq!(agent.callback_url.as_deref(), Some("https://example.com/hook"));
        assert_eq!(
            agent.limits,
            AgentLimits { max_turns: 20, max_tool_calls_per_turn: 4, max_workspace_bytes: 10 << 20 }
        );
        assert_eq!(agent.system_prompt, "You are careful.\n\nCite sources.");
    }

    #[test]
    fn minimal_file_gets_defaults() {
        let agent = AgentDefinition::parse("---\nname: tiny\n---\n").unwrap();
        assert_eq!(agent.provider, None);
        assert!(agent.questions);
        assert_eq!(agent.question_policy, QuestionPolicy::default());
        assert_eq!(agent.limits, AgentLimits::default());
        assert_eq!(agent.system_prompt, "");
    }

    #[test]
    fn questions_false_removes_the_tool() {
        let agent = AgentDefinition::parse(
            "---\nname: hook\nquestions: false\nquestion_timeout: 90\n---\nWork from the payload.",
        )
        .unwrap();
        assert!(!agent.questions);
        assert_eq!(agent.question_policy.timeout_ms, Some(90_000));
        let err =
            AgentDefinition::parse("---\nname: hook\nquestions: false\ntools: [ask_user_question]\n---\n").unwrap_err();
        assert_eq!(err.line, Some(4));
    }

    fn err(text: &str) -> String {
        AgentDefinition::parse(text).unwrap_err().to_string()
    }

    #[test]
    fn lines_are_counted_as_editors_count_them() {
        // U+2028 ends a line for YAML, not in an editor.
        let err = AgentDefinition::parse("---\nname: a\ndescription: x\u{2028}y\nmodle: x\n---\n").unwrap_err();
        assert_eq!(err.line, Some(4), "{err}");
        let err = AgentDefinition::parse("---\r\nname: a\r\nmodle: x\r\n---\r\n").unwrap_err();
        assert_eq!(err.line, Some(3), "{err}");
        let err = AgentDefinition::parse("---\nname: a\rmodle: x\n---\n").unwrap_err();
        assert_eq!(err.line, Some(3), "{err}");
        assert_eq!(file_line("a\nb", 99), 3, "an index past the end is the last line");
    }

    #[test]
    fn a_control_character_is_reported_on_its_own_line() {
        for (text, line) in [
            ("---\nname: nul\ndescription: a\u{0}b\n---\n", 3),
            ("---\nname: bell\u{7}\n---\n", 2),
            ("---\nname: esc\nmodel: x\ndescription: \u{1b}[31m\n---\n", 4),
            ("---\nname: c1\ndescription: \u{9b}x\n---\n", 3),
            ("---\nname: cr\rdescription: \u{0}\n---\n", 3),
        ] {
            let err = AgentDefinition::parse(text).unwrap_err();
            assert_eq!(err.line, Some(line), "{text:?}: {err}");
            assert!(err.message.starts_with("control characters are not allowed"), "{err}");
        }
        let err = AgentDefinition::parse("---\nname: nul\ndescription: a\u{0}b\n---\n").unwrap_err();
        assert!(err.message.ends_with("(U+0000 in column 15)"), "{err}");
        // Tabs, carriage returns and control characters in the prompt are the author's business.
        let agent = AgentDefinition::parse("---\r\nname: tabs\r\ndescription: a\tb\r\n---\r\nRing \u{7}.").unwrap();
        assert_eq!(agent.system_prompt, "Ring \u{7}.");
    }

    #[test]
    fn errors_name_the_line() {
        assert!(
            err("---\nname: a\nmodle: x\n---\n").starts_with("line 3: unknown field `modle`"),
            "{}",
            err("---\nname: a\nmodle: x\n---\n")
        );
        assert!(
            err("---\nname: a\non_timeout: retry\n---\n").starts_with("line 3: on_timeout: unknown variant `retry`"),
            "{}",
            err("---\nname: a\non_timeout: retry\n---\n")
        );
        assert!(err("---\nname: a\nprovider: gemini\n---\n").starts_with("line 3: provider: unknown variant `gemini`"));
        assert_eq!(
            err("---\nname: a\ntools: [shell]\n---\n"),
            "line 3: unknown tool \"shell\"; available: read_file, write_file, list_files, spawn_agent"
        );
        assert_eq!(
            err("---\nname: a\nquestion_timeout: soon\n---\n"),
            "line 3: question_timeout: \"soon\" is not a duration; write a number and a unit such as 90s, 15m, 2h or 7d"
        );
        assert_eq!(
            err("---\nname: a\n\non_timeout: default\n---\n"),
            "line 4: on_timeout: default needs a default_answer"
        );
        assert_eq!(
            err("---\nname: Big Name\n---\n"),
            "line 2: name \"Big Name\" must be 1 to 64 lower-case letters, digits, '-' or '_', starting with a letter or digit"
        );
        assert_eq!(err("---\ndescription: x\n---\n"), "line 1: the front matter needs a name, e.g. `name: researcher`");
        assert!(err("---\nname: a\ncallback_url: ftp://x\n---\n").starts_with("line 3: callback_url"));
    }

    #[test]
    fn limits_out_of_range_are_refused_on_their_line() {
        assert_eq!(err("---\nname: a\nmax_turns: 0\n---\n"), "line 3: max_turns must be between 1 and 1000");
        assert_eq!(
            err("---\nname: a\ntools: []\nmax_tool_calls_per_turn: 1000\n---\n"),
            "line 4: max_tool_calls_per_turn must be between 1 and 256"
        );
        assert_eq!(
            err("---\nname: a\nmax_workspace: 1KB\n---\n"),
            "line 3: max_workspace must be between 4KB and 64GB"
        );
        assert_eq!(
            err("---\nname: a\nmax_workspace: lots\n---\n"),
            "line 3: max_workspace: \"lots\" is not a size; write a number and a unit such as 64KB or 100MB"
        );
        assert_eq!(
            err("---\nname: a\nmax_workspace: [1]\n---\n"),
            "line 3: max_workspace: must be a number of bytes or a size such as 64KB, 100MB or 2GB"
        );
        assert!(err("---\nname: a\nmax_turns: -1\n---\n").starts_with("line 3: max_turns: invalid"));
        let agent = AgentDefinition::parse("---\nname: a\nmax_workspace: 65536\n---\n").unwrap();
        assert_eq!(agent.limits.max_workspace_bytes, 65536);
    }

    #[test]
    fn broken_structure_is_explained() {
        assert!(err("name: a\n").starts_with("line 1: an agent file starts with a front matter block"));
        assert_eq!(err("---\nname: a\n"), "the front matter is not closed: add a line `---` after the last field");
        assert!(err("---\nname: [unclosed\n---\n").starts_with("line "), "{}", err("---\nname: [unclosed\n---\n"));
        assert!(AgentDefinition::parse(&"x".repeat(AGENT_FILE_MAX_BYTES + 1)).is_err());
    }

    #[test]
    fn windows_line_endings_and_bom_are_fine() {
        let agent = AgentDefinition::parse("\u{feff}---\r\nname: win\r\n---\r\nHello\r\n").unwrap();
        assert_eq!(agent.name, "win");
        assert_eq!(agent.system_prompt, "Hello");
    }
}
