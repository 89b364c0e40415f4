//! How a question is answered on Telegram: an option's button, toggles and Submit, a written
//! reply, or in Beckon. Its message's text and its buttons both follow from it.

use beckon_core::{QuestionItem, QuestionRequest};

/// How the person answers a question on Telegram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    /// One single-select question: pressing an option answers.
    Buttons,
    /// Options to toggle, then Submit: a multi-select question, or several choice questions.
    Toggles {
        /// How many questions the form answers.
        items: usize,
    },
    /// One free-form question: answered by replying with text.
    Written,
    /// Several questions, some to be written: answered in Beckon (or skipped here).
    InBeckon,
}

impl Form {
    /// How `request` is answered on Telegram.
    pub fn of(request: &QuestionRequest) -> Form {
        match request.items() {
            [QuestionItem::Choice(choice)] if !choice.multi_select => Form::Buttons,
            [QuestionItem::FreeForm(_)] => Form::Written,
            items if items.iter().all(|item| matches!(item, QuestionItem::Choice(_))) => {
                Form::Toggles { items: items.len() }
            }
            _ => Form::InBeckon,
        }
    }

    /// Whether a written reply answers it: a request of one question (as its "Other" answer,
    /// or its value).
    pub fn takes_replies(self) -> bool {
        match self {
            Form::Buttons | Form::Written => true,
            Form::Toggles { items } => items == 1,
            Form::InBeckon => false,
        }
    }
}
