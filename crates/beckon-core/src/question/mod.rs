//! What an agent asks: one `ask_user_question` request of 1–4 items, each a choice question
//! exactly as Claude Code's AskUserQuestion takes it or a free-form question with a small
//! JSON-Schema, read and checked in one pass that reports every problem with its path.

mod format;
mod inbox_line;
mod request;
mod schema;

pub use format::StringFormat;
pub use inbox_line::{InboxLine, QuestionKind};
pub use request::{ChoiceQuestion, FreeFormQuestion, QuestionItem, QuestionOption, QuestionRequest, tool_error_text};
pub use schema::{FieldKind, FieldSchema};

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;
