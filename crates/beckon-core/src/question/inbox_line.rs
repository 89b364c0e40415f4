//! One question as the inbox's list shows and searches it: what kind it is, where it comes
//! from and what it is about, without the body (options, previews, a tool's whole input), so a
//! window with thousands waiting loads only this and fetches a question whole when it opens it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{QuestionItem, QuestionRequest};

/// What a question asks for.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuestionKind {
    /// Permission for a tool call.
    Approval,
    /// A choice (or a mix of choices and values).
    Question,
    /// A form: at least one free-form value (as an MCP server's form asks).
    Form,
}

/// The list's line for one question.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InboxLine {
    /// What it asks for.
    pub kind: QuestionKind,
    /// The project as the agent named it (a folder path): an approval's, else the request's
    /// `metadata.project` or `metadata.cwd`; empty when it names none.
    pub project: String,
    /// Approvals: the tool and its command or file; questions: the first header and question.
    pub summary: String,
    /// The command, file, pattern or URL an approval is for, when it names one.
    pub command: Option<String>,
    /// Every item's question text, one per line (what the search box matches besides the rest).
    pub text: String,
}

/// The input fields that say what an approval is for, most telling first.
const TARGET_FIELDS: [&str; 5] = ["command", "file_path", "path", "pattern", "url"];

fn non_blank(value: Option<&Value>) -> Option<&str> {
    value.and_then(Value::as_str).filter(|text| !text.trim().is_empty())
}

/// The command, file, pattern or URL a tool call's input is for.
fn target(input: &Map<String, Value>) -> Option<&str> {
    TARGET_FIELDS.iter().find_map(|field| non_blank(input.get(*field)))
}

impl QuestionRequest {
    /// What this request asks for.
    pub fn kind(&self) -> QuestionKind {
        if self.approval().is_some() {
            QuestionKind::Approval
        } else if self.items().iter().any(|item| matches!(item, QuestionItem::FreeForm(_))) {
            QuestionKind::Form
        } else {
            QuestionKind::Question
        }
    }

    /// The inbox's line for this request.
    pub fn inbox_line(&self) -> InboxLine {
        let items = self.items();
        let text = items.iter().map(QuestionItem::question).collect::<Vec<_>>().join("\n");
        let metadata = self.metadata();
        let project = match self.approval().and_then(|approval| approval.project.as_deref()) {
            Some(project) => project,
            None => ["project", "cwd"]
                .iter()
                .find_map(|key| non_blank(metadata.and_then(|m| m.get(*key))))
                .unwrap_or_default(),
        }
        .to_owned();
        if let Some(approval) = self.approval() {
            let command = target(&approval.input).map(str::to_owned);
            let summary = match &command {
                Some(command) => format!("{}: {command}", approval.tool_name),
                None => approval.tool_name.clone(),
            };
            return InboxLine { kind: QuestionKind::Approval, project, summary, command, text };
        }
        let summary = items
            .first()
            .map(|first| [first.header().unwrap_or_default(), first.question()])
            .into_iter()
            .flatten()
            .filter(|part| !part.is_empty())
            .collect::<Vec<_>>()
            .join(" · ");
        InboxLine { kind: self.kind(), project, summary, command: None, text }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::Approval;

    fn approval(value: serde_json::Value) -> QuestionRequest {
        QuestionRequest::for_approval(Approval::parse(&value, "approval").unwrap())
    }

    fn request(value: serde_json::Value) -> QuestionRequest {
        QuestionRequest::parse(&value).unwrap()
    }

    #[test]
    fn an_approval_reads_as_its_tool_and_what_it_acts_on() {
        let line = approval(json!({"tool_name": "Bash", "input": {"command": "npm test", "description": "Run"}, "project": "/src/shop"}))
            .inbox_line();
        assert_eq!(line.kind, QuestionKind::Approval);
        assert_eq!(line.summary, "Bash: npm test");
        assert_eq!(line.command.as_deref(), Some("npm test"));
        assert_eq!(line.project, "/src/shop");
        assert_eq!(line.text, "Allow Claude to run this command?");

        let edit = approval(
            json!({"tool_name": "Edit", "input": {"file_path": "src/a.rs", "old_string": "a", "new_string": "b"}}),
        );
        assert_eq!(edit.inbox_line().summary, "Edit: src/a.rs");
        assert_eq!(edit.inbox_line().project, "");
        let blank = approval(json!({"tool_name": "Grep", "input": {"command": "  ", "pattern": "TODO"}}));
        assert_eq!(blank.inbox_line().command.as_deref(), Some("TODO"));
        let bare = approval(json!({"tool_name": "mcp__github__create_issue", "input": {"title": "x"}}));
        assert_eq!(bare.inbox_line().summary, "mcp__github__create_issue");
        assert_eq!(bare.inbox_line().command, None);
    }

    #[test]
    fn a_question_reads_as_its_first_header_and_text() {
        let line = request(json!({"questions": [
            {"question": "Which colour?", "header": "Colour", "options": [{"label": "Red"}, {"label": "Blue"}]},
            {"question": "How many?", "schema": {"type": "integer"}}
        ], "metadata": {"project": " ", "cwd": "/src/docs"}}))
        .inbox_line();
        assert_eq!(line.kind, QuestionKind::Form);
        assert_eq!(line.summary, "Colour · Which colour?");
        assert_eq!(line.project, "/src/docs");
        assert_eq!(line.text, "Which colour?\nHow many?");
        assert_eq!(line.command, None);

        let plain =
            request(json!({"questions": [{"question": "Ship it?", "options": [{"label": "Yes"}, {"label": "No"}]}]}));
        assert_eq!(plain.inbox_line().kind, QuestionKind::Question);
        assert_eq!(plain.inbox_line().summary, "Ship it?");
    }

    #[test]
    fn a_line_is_far_smaller_than_a_large_approval() {
        let content = "x".repeat(50_000);
        let write = approval(json!({"tool_name": "Write", "input": {"file_path": "big.txt", "content": content}}));
        let line = serde_json::to_string(&write.inbox_line()).unwrap();
        assert!(line.len() < 300, "{line}");
        assert!(serde_json::to_string(&write).unwrap().len() > 50_000);
    }
}
