//! Agent definition files: any bytes, read as the agent loader reads a file (text that is not
//! UTF-8 is refused before parsing, so only UTF-8 reaches `AgentDefinition::parse`).
//!
//! Invariants: an accepted file holds only what the rules allow (a valid name, known tools
//! without `ask_user_question`, a timeout from 1 s to 365 d, a default answer whenever the
//! policy uses one, a trimmed prompt) and survives a serde round trip; a refused file says
//! why, and any line it names is a line of the file as editors count lines (a line feed, a
//! CR LF or a lone CR ends one; U+2028 and its kin, which end lines for YAML, do not).

#![no_main]

use beckon_core::agent::{AgentDefinition, BUILTIN_TOOLS, OnTimeout};
use libfuzzer_sys::fuzz_target;

const MAX_TIMEOUT_MS: u64 = 365 * 86_400_000;

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else { return };
    match AgentDefinition::parse(text) {
        Ok(agent) => check_accepted(&agent),
        Err(err) => {
            assert!(!err.message.trim().is_empty(), "a refusal without a reason");
            if let Some(line) = err.line {
                // Lines as editors count them; a problem may sit just past the last one.
                let lines = text.replace("\r\n", "\n").split(['\n', '\r']).count();
                assert!((1..=lines + 1).contains(&line), "line {line} of a {lines}-line file: {err}");
            }
        }
    }
});

fn check_accepted(agent: &AgentDefinition) {
    let name = &agent.name;
    assert!(!name.is_empty() && name.len() <= 64, "name {name:?}");
    assert!(
        name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_'),
        "name {name:?}"
    );
    for tool in &agent.tools {
        assert!(BUILTIN_TOOLS.contains(&tool.as_str()), "tool {tool:?}");
    }
    let policy = &agent.question_policy;
    if let Some(ms) = policy.timeout_ms {
        assert!((1..=MAX_TIMEOUT_MS).contains(&ms), "timeout {ms} ms");
    }
    if policy.on_timeout == OnTimeout::Default {
        assert!(policy.default_answer.as_deref().is_some_and(|a| !a.trim().is_empty()), "default without an answer");
    }
    assert_eq!(agent.system_prompt.trim(), agent.system_prompt, "the prompt is not trimmed");
    let json = serde_json::to_value(agent).expect("an agent serialises");
    let back: AgentDefinition = serde_json::from_value(json).expect("an agent deserialises");
    assert_eq!(&back, agent);
}
