//! Who asks and where: questions are counted into bursts, and reminded of, per agent and project.

use super::text::cut;
use crate::QuestionRequest;

/// More than this many questions from one agent in one project at once become one notification
/// that counts them.
pub const BURST_LIMIT: usize = 3;

/// The longest agent or project name in a burst's title, in characters.
const NAME_MAX_CHARS: usize = 40;

/// Who asks and where: the asking agent, and the project folder its approval names (none for a
/// plain question, or an approval that names none).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Group {
    /// The asking agent ("claude-code").
    pub agent: String,
    /// The project folder, as the approval gives it ("/home/ada/shop").
    pub project: Option<String>,
}

impl Group {
    /// The group of `request`, asked by `agent`.
    pub fn asking(agent: &str, request: &QuestionRequest) -> Group {
        Group { agent: agent.to_owned(), project: request.approval().and_then(|approval| approval.project.clone()) }
    }

    /// The project's folder name ("shop" for `/home/ada/shop`), if it names one.
    fn project_name(&self) -> Option<&str> {
        let project = self.project.as_deref()?.trim_end_matches(['/', '\\']);
        project.rsplit(['/', '\\']).next().filter(|name| !name.is_empty())
    }

    /// "claude-code in shop", or "deploy-bot (no project)".
    pub fn title(&self) -> String {
        let agent = cut(&self.agent, NAME_MAX_CHARS);
        match self.project_name() {
            Some(project) => format!("{agent} in {}", cut(project, NAME_MAX_CHARS)),
            None => format!("{agent} (no project)"),
        }
    }

    /// The title of this group's burst: "claude-code in shop: 12 approvals waiting".
    pub fn burst_title(&self, approvals: usize, questions: usize) -> String {
        format!("{}: {} waiting", self.title(), counted(approvals, questions))
    }
}

/// "12 approvals", "1 question", "5 approvals and 2 questions".
pub fn counted(approvals: usize, questions: usize) -> String {
    let count = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let approvals_text = count(approvals, "approval", "approvals");
    let questions_text = count(questions, "question", "questions");
    match (approvals, questions) {
        (_, 0) => approvals_text,
        (0, _) => questions_text,
        _ => format!("{approvals_text} and {questions_text}"),
    }
}

/// What a burst's notification says to do: open the inbox.
pub fn burst_body(count: usize) -> &'static str {
    if count == 1 { "Open the inbox to answer it." } else { "Open the inbox to answer them." }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_as_approvals_questions_or_both() {
        assert_eq!(counted(12, 0), "12 approvals");
        assert_eq!(counted(1, 0), "1 approval");
        assert_eq!(counted(0, 3), "3 questions");
        assert_eq!(counted(0, 1), "1 question");
        assert_eq!(counted(5, 2), "5 approvals and 2 questions");
        assert_eq!(counted(1, 1), "1 approval and 1 question");
    }

    #[test]
    fn a_group_is_titled_by_its_agent_and_project_folder() {
        let group = |project: Option<&str>| Group { agent: "claude-code".into(), project: project.map(str::to_owned) };
        assert_eq!(group(Some("/home/ada/shop")).title(), "claude-code in shop");
        assert_eq!(group(Some("/home/ada/shop/")).title(), "claude-code in shop");
        assert_eq!(group(Some(r"C:\work\shop")).title(), "claude-code in shop");
        assert_eq!(group(None).title(), "claude-code (no project)");
        assert_eq!(group(Some("/")).title(), "claude-code (no project)");
        let long = Group { agent: "a".repeat(100), project: Some(format!("/x/{}\u{202E}", "p".repeat(100))) };
        assert_eq!(long.title(), format!("{}… in {}…", "a".repeat(39), "p".repeat(39)));
        assert_eq!(group(None).burst_title(5, 2), "claude-code (no project): 5 approvals and 2 questions waiting");
    }
}
