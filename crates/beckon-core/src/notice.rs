//! A notice: an agent outside Beckon waits for its person somewhere Beckon cannot answer for
//! it (Claude Code idle at its own prompt). Nothing is asked and nothing is stored: the person
//! is told where to go, and the notice goes away when the agent goes on.

use serde::{Deserialize, Serialize};

use crate::Problems;
use crate::text::{check_name, is_name};

/// Longest key, in bytes.
pub const KEY_MAX_BYTES: usize = 200;
/// Longest agent name, in bytes.
pub const AGENT_MAX_BYTES: usize = 64;
/// Longest message, in bytes.
pub const MESSAGE_MAX_BYTES: usize = 1024;
/// Longest project path, in bytes.
pub const PROJECT_MAX_BYTES: usize = 4096;

/// An agent waits for its person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Notice {
    /// What it stands for (one per agent session): a later notice under the same key replaces
    /// it, and clearing the key takes it away.
    pub key: String,
    /// Who waits.
    pub agent: String,
    /// What it waits for ("Claude is waiting for your input").
    pub message: String,
    /// The folder it works in, if it said.
    pub project: Option<String>,
    /// When it was posted (Unix ms).
    pub posted_at_ms: i64,
}

fn is_text(text: &str, max: usize) -> bool {
    !text.trim().is_empty() && text.len() <= max && !text.chars().any(|c| c.is_control() && c != '\n')
}

/// Refuses bidi controls and marks in `text`, naming the first one: a notice is read at a glance
/// in a notification, where these would make it read in another order than it was written.
fn check_bidi(field: &str, text: &str, problems: &mut Problems) {
    if let Some(c) = text.chars().find(|&c| crate::text::is_bidi_control(c) || crate::text::is_bidi_mark(c)) {
        problems.push(
            field,
            format!(
                "contains the bidirectional control character U+{:04X}, which can make text read in another order than it was written; remove it",
                c as u32
            ),
        );
    }
}

impl Notice {
    /// A notice, or every rule it breaks (fields named as the HTTP body names them).
    pub fn new(
        key: &str,
        agent: String,
        message: String,
        project: Option<String>,
        posted_at_ms: i64,
    ) -> Result<Notice, Problems> {
        let mut problems = Problems::new();
        // A key goes into a URL path, so no '/'.
        if !is_name(key, KEY_MAX_BYTES, &['-', '_', '.', ':']) {
            problems.push("key", format!("must be 1 to {KEY_MAX_BYTES} letters, digits, '-', '_', '.' or ':'"));
        }
        check_name("agent", &agent, AGENT_MAX_BYTES, &mut problems);
        if !is_text(&message, MESSAGE_MAX_BYTES) {
            problems
                .push("message", format!("must be 1 to {MESSAGE_MAX_BYTES} bytes of text without control characters"));
        }
        check_bidi("message", &message, &mut problems);
        if let Some(project) = project.as_deref() {
            if !is_text(project, PROJECT_MAX_BYTES) {
                problems.push("project", format!("must be 1 to {PROJECT_MAX_BYTES} bytes without control characters"));
            }
            check_bidi("project", project, &mut problems);
        }
        problems.into_result(Notice { key: key.to_owned(), agent, message, project, posted_at_ms })
    }

    /// The project's folder name ("shop" for `/home/ada/shop`), if it gave one.
    pub fn project_name(&self) -> Option<&str> {
        let project = self.project.as_deref()?.trim_end_matches(['/', '\\']);
        project.rsplit(['/', '\\']).next().filter(|name| !name.is_empty())
    }

    /// "claude-code waits in shop", or "claude-code waits".
    pub fn title(&self) -> String {
        match self.project_name() {
            Some(project) => format!("{} waits in {project}", self.agent),
            None => format!("{} waits", self.agent),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notice(key: &str, message: &str, project: Option<&str>) -> Result<Notice, Problems> {
        Notice::new(key, "claude-code".into(), message.into(), project.map(str::to_owned), 7)
    }

    #[test]
    fn a_notice_names_its_agent_and_project() {
        let shown = notice("claude-code:abc", "Claude is waiting for your input", Some("/home/ada/shop/")).unwrap();
        assert_eq!(shown.title(), "claude-code waits in shop");
        assert_eq!(shown.posted_at_ms, 7);
        assert_eq!(notice("k", "m", None).unwrap().title(), "claude-code waits");
        assert_eq!(notice("k", "m", Some("/")).unwrap().title(), "claude-code waits");
        assert_eq!(notice("k", "m", Some(r"C:\work\shop")).unwrap().project_name(), Some("shop"));
    }

    #[test]
    fn every_broken_rule_is_named() {
        let problems = Notice::new("a/key", "".into(), " ".into(), Some("x\u{7}".into()), 0).unwrap_err();
        let paths: Vec<&str> = problems.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(paths, ["key", "agent", "message", "project"]);
        assert!(notice(&"k".repeat(KEY_MAX_BYTES + 1), "m", None).is_err());
        assert!(notice("k", &"m".repeat(MESSAGE_MAX_BYTES + 1), None).is_err());
        assert!(notice("k", "two\nlines", None).is_ok());
        assert!(notice("k", "m", Some(&"p".repeat(PROJECT_MAX_BYTES + 1))).is_err());
    }

    #[test]
    fn bidi_controls_are_refused_by_field() {
        for c in ['\u{202A}', '\u{202E}', '\u{2066}', '\u{2069}', '\u{200E}', '\u{200F}', '\u{061C}'] {
            let problems = notice("k", &format!("waiting {c}tupni"), None).unwrap_err();
            let [problem] = problems.iter().collect::<Vec<_>>().try_into().unwrap();
            assert_eq!(problem.path, "message");
            assert!(problem.message.contains(&format!("U+{:04X}", c as u32)), "{}", problem.message);
            assert!(problem.message.contains("bidirectional"), "{}", problem.message);
            let problems = notice("k", "waiting", Some(&format!("/home/ada/{c}pohs"))).unwrap_err();
            assert_eq!(problems.iter().map(|p| p.path.as_str()).collect::<Vec<_>>(), ["project"]);
        }
        // Right-to-left text itself is welcome.
        assert!(notice("k", "ממתין לקלט", Some("/home/ada/مشروع")).is_ok());
    }
}
