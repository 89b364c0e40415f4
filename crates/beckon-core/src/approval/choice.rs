//! The person's choice on an approval and the input field they may edit, as types: the
//! labels an answer carries are read here and nowhere else.

use serde::Serialize;

use crate::answer::Answer;

/// One option of an approval. An answer carries it as its label (`{"selected": ["Allow"]}`).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ApprovalChoice {
    /// Run the call once.
    #[serde(rename = "Allow")]
    Allow,
    /// Run it and remember the rules the caller offered.
    #[serde(rename = "Allow always")]
    AllowAlways,
    /// Refuse it, with the answer's comment as the message to the model.
    #[serde(rename = "Deny")]
    Deny,
}

impl ApprovalChoice {
    /// The label the person picks and an answer carries.
    pub fn label(self) -> &'static str {
        match self {
            Self::Allow => "Allow",
            Self::AllowAlways => "Allow always",
            Self::Deny => "Deny",
        }
    }

    /// The choice `label` names, if any (matched exactly, as answers are checked).
    pub fn named(label: &str) -> Option<Self> {
        [Self::Allow, Self::AllowAlways, Self::Deny].into_iter().find(|choice| choice.label() == label)
    }

    /// The choice `answer` makes: exactly one selected label that names a choice. Whether the
    /// approval offers it is the approval's to check.
    pub fn of(answer: &Answer) -> Option<Self> {
        match answer.selected.as_slice() {
            [one] => Self::named(one),
            _ => None,
        }
    }

    /// Whether it lets the call run.
    pub fn grants(self) -> bool {
        match self {
            Self::Allow | Self::AllowAlways => true,
            Self::Deny => false,
        }
    }

    /// The answer that makes this choice, with nothing edited and no comment.
    pub fn answer(self) -> Answer {
        Answer::select([self.label()])
    }
}

/// The input field the person may edit before allowing, named as in the tool's input.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EditableField {
    /// A Bash call's `command`.
    Command,
    /// A written file's `content`.
    Content,
}

impl EditableField {
    /// The field's key in the tool's input.
    pub fn key(self) -> &'static str {
        match self {
            Self::Command => "command",
            Self::Content => "content",
        }
    }
}
