//! What a question's notification says and offers, wherever it is shown: on the desktop (the
//! OS's notifications) and on a phone (a Web Push a team server sends). One rule for both, so a
//! button pressed on reflex answers only what the notification shows (see [`approval`]).

pub mod approval;
mod group;
pub mod text;

use crate::{QuestionItem, QuestionRequest};

pub use approval::ApprovalNotification;
pub use group::{BURST_LIMIT, Group, burst_body, counted};
pub use text::{Shown, cut, fit};

/// The longest body of a question's notification, in characters.
const BODY_MAX_CHARS: usize = 240;
/// Buttons are offered for a single single-select question with at most this many options.
const MAX_BUTTONS: usize = 3;
/// The longest title part (who asks, what about), in characters.
const TITLE_PART_MAX_CHARS: usize = 60;
/// The longest button label, in characters.
const BUTTON_MAX_CHARS: usize = 40;

/// A question's notification, before a platform shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuestionNotification {
    /// "<who asks> asks: <what about>".
    pub title: String,
    /// The question, or what an approval would allow.
    pub body: String,
    /// (action key, label): `answer:<index of the option>`, in the options' order.
    pub buttons: Vec<(String, String)>,
}

/// The notification for `request`, asked by `origin` ("claude-code", "research › summariser").
/// An approval's shows what it would allow and offers Allow only when all of it is shown (see
/// [`approval::notification`]); a question offers a button per option when it is one
/// single-select question of up to three options.
pub fn question(origin: &str, request: &QuestionRequest) -> QuestionNotification {
    let title =
        format!("{} asks: {}", cut(origin, TITLE_PART_MAX_CHARS), cut(&request.summary(), TITLE_PART_MAX_CHARS));
    if let Some(approval) = request.approval() {
        let shown = approval::notification(approval, request);
        return QuestionNotification { title, body: shown.body, buttons: shown.buttons };
    }
    let items = request.items();
    let mut body = items.first().map(|item| cut(item.question(), BODY_MAX_CHARS)).unwrap_or_default();
    if items.len() > 1 {
        body.push_str(&format!(
            "\n(+{} more {})",
            items.len() - 1,
            if items.len() == 2 { "question" } else { "questions" }
        ));
    }
    let buttons = match items {
        [QuestionItem::Choice(choice)] if !choice.multi_select && choice.options.len() <= MAX_BUTTONS => choice
            .options
            .iter()
            .enumerate()
            .map(|(i, option)| (format!("answer:{i}"), cut(&option.label, BUTTON_MAX_CHARS)))
            .collect(),
        _ => Vec::new(),
    };
    QuestionNotification { title, body, buttons }
}
