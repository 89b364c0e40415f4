//! What Beckon's controls say, both ways: the action and block ids of a message's buttons and
//! inputs, what a button's value carries, and a form's private metadata. `blocks` and `modal`
//! write them; `interaction` reads them back from payloads, where they are hostile text: every
//! reader is strict (an index must be a small number, a request id a UUID, a size bounded) and
//! answers `None` rather than guess.
//!
//! A button's value names its question and, for the buttons that open a form, what the form
//! asks (question texts and option labels, cut): Slack holds the message, so a form can be
//! opened for it after a restart with nothing kept in memory. Slack caps a value at 2000
//! characters and a form's metadata at 3000; both are kept under.

use beckon_core::limits::{MAX_OPTIONS, MAX_QUESTIONS};
use beckon_core::{QuestionItem, QuestionRequest, RequestId};
use serde::{Deserialize, Serialize};

use super::text::{LABEL_MAX_CHARS, cut};
use crate::channel::MessageRef;

/// Slack's limit on a button's value.
const VALUE_MAX_CHARS: usize = 2000;
/// Slack's limit on a view's private metadata.
const METADATA_MAX_CHARS: usize = 3000;
/// Longest question text a form repeats (the message shows it whole).
const FORM_QUESTION_MAX_CHARS: usize = 150;
/// Longest Slack id or ts Beckon accepts from a payload.
const SLACK_ID_MAX_CHARS: usize = 64;

/// A button on a question's message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Button {
    /// Answers with the option at this index (single question, single choice).
    Option(usize),
    /// Opens the "Other" form: the person's own answer and a comment.
    Other,
    /// Opens the "Comment" form: an option and a comment.
    Comment,
    /// Opens the form that asks every question.
    Form,
    /// Answers with what the message's checkboxes and radio buttons hold.
    Submit,
    /// Declines.
    Skip,
}

const OPTION_PREFIX: &str = "beckon.option.";

impl Button {
    /// The button's action id, unique within its message.
    pub(super) fn action_id(self) -> String {
        match self {
            Self::Option(index) => format!("{OPTION_PREFIX}{index}"),
            Self::Other => "beckon.other".into(),
            Self::Comment => "beckon.comment".into(),
            Self::Form => "beckon.form".into(),
            Self::Submit => "beckon.submit".into(),
            Self::Skip => "beckon.skip".into(),
        }
    }

    /// The button an action id names; `None` for anything else (an option index must be one
    /// or two digits).
    pub(super) fn parse(action_id: &str) -> Option<Self> {
        if let Some(index) = action_id.strip_prefix(OPTION_PREFIX) {
            return small_index(index).map(Self::Option);
        }
        [Self::Other, Self::Comment, Self::Form, Self::Submit, Self::Skip]
            .into_iter()
            .find(|button| button.action_id() == action_id)
    }
}

/// Block and action id of question `index`'s option picker (checkboxes, radio buttons, a
/// select): block and action ids are the same.
pub(super) fn pick_id(index: usize) -> String {
    format!("beckon.pick.{index}")
}

/// Block and action id of question `index`'s text (an "Other" answer or a free-form value).
pub(super) fn text_id(index: usize) -> String {
    format!("beckon.text.{index}")
}

/// Block and action id of question `index`'s comment.
pub(super) fn note_id(index: usize) -> String {
    format!("beckon.note.{index}")
}

/// An option's value in a picker: its index.
pub(super) fn option_value(index: usize) -> String {
    index.to_string()
}

/// The option index a picker's value names.
pub(super) fn parse_option_value(value: &str) -> Option<usize> {
    small_index(value)
}

fn small_index(text: &str) -> Option<usize> {
    if text.is_empty() || text.len() > 2 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// What a button's value carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct ButtonValue {
    /// The question the message shows.
    #[serde(rename = "r")]
    pub request_id: String,
    /// How many questions it has (read by Submit).
    #[serde(rename = "n")]
    pub items: usize,
    /// What a form opened by this button asks.
    #[serde(rename = "f", default, skip_serializing_if = "Vec::is_empty")]
    pub form: Vec<FormItem>,
}

/// One question as a form asks it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "k")]
pub(super) enum FormItem {
    /// Pick from options (and write an "Other" answer).
    #[serde(rename = "c")]
    Choice {
        /// The question, cut.
        #[serde(rename = "q")]
        question: String,
        /// Whether several may be picked.
        #[serde(rename = "m")]
        multi: bool,
        /// The option labels, cut.
        #[serde(rename = "o")]
        options: Vec<String>,
    },
    /// Write a value.
    #[serde(rename = "t")]
    Text {
        /// The question, cut.
        #[serde(rename = "q")]
        question: String,
    },
}

impl ButtonValue {
    /// The value of a button that needs only its question.
    pub(super) fn plain(request_id: RequestId, request: &QuestionRequest) -> String {
        let value = ButtonValue { request_id: request_id.to_string(), items: request.items().len(), form: Vec::new() };
        to_json(&value)
    }

    /// The value of a button that opens a form asking every question of `request`,
    /// its texts cut until it fits Slack's limit.
    pub(super) fn with_form(request_id: RequestId, request: &QuestionRequest) -> String {
        let mut question_max = FORM_QUESTION_MAX_CHARS;
        let mut label_max = LABEL_MAX_CHARS;
        loop {
            let form = request.items().iter().map(|item| form_item(item, question_max, label_max)).collect();
            let value = ButtonValue { request_id: request_id.to_string(), items: request.items().len(), form };
            let text = to_json(&value);
            if text.chars().count() <= VALUE_MAX_CHARS || (question_max == 0 && label_max == 0) {
                return text;
            }
            question_max /= 2;
            label_max /= 2;
        }
    }

    /// Reads a value from a payload: bounded, its request id a UUID, its form within the
    /// request limits; `None` for anything else.
    pub(super) fn parse(text: &str) -> Option<(RequestId, Self)> {
        if text.chars().count() > VALUE_MAX_CHARS {
            return None;
        }
        let value: ButtonValue = serde_json::from_str(text).ok()?;
        let id = RequestId::parse(&value.request_id).ok()?;
        let sane_form = value.form.len() <= MAX_QUESTIONS
            && value.form.iter().all(|item| match item {
                FormItem::Choice { options, .. } => options.len() <= MAX_OPTIONS,
                FormItem::Text { .. } => true,
            });
        (value.items >= 1 && value.items <= MAX_QUESTIONS && sane_form).then_some((id, value))
    }
}

fn form_item(item: &QuestionItem, question_max: usize, label_max: usize) -> FormItem {
    match item {
        QuestionItem::Choice(choice) => FormItem::Choice {
            question: cut(&choice.question, question_max),
            multi: choice.multi_select,
            options: choice.options.iter().map(|option| cut(&option.label, label_max)).collect(),
        },
        QuestionItem::FreeForm(free) => FormItem::Text { question: cut(&free.question, question_max) },
    }
}

/// Which form a view is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(super) enum FormKind {
    /// The person's own answer to a single question, with a comment.
    #[serde(rename = "other")]
    Other,
    /// An option of a single question, with a comment.
    #[serde(rename = "comment")]
    Comment,
    /// Every question.
    #[serde(rename = "form")]
    Full,
}

/// A form's private metadata: which question, on which message, and how many answers it
/// gives, so its submission becomes a press on that exact message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct FormMetadata {
    /// Which form.
    #[serde(rename = "k")]
    pub kind: FormKind,
    /// The question.
    #[serde(rename = "r")]
    pub request_id: String,
    /// The message's channel.
    #[serde(rename = "c")]
    pub channel: String,
    /// The message's ts.
    #[serde(rename = "t")]
    pub ts: String,
    /// How many questions the request has.
    #[serde(rename = "n")]
    pub items: usize,
}

impl FormMetadata {
    /// The metadata for `kind` on `message`; `None` if it would not fit (ids are checked
    /// before, so it always fits in practice).
    pub(super) fn encode(kind: FormKind, request_id: RequestId, message: &MessageRef, items: usize) -> Option<String> {
        let metadata = FormMetadata {
            kind,
            request_id: request_id.to_string(),
            channel: message.conversation.clone(),
            ts: message.message.clone(),
            items,
        };
        let text = to_json(&metadata);
        (text.chars().count() <= METADATA_MAX_CHARS).then_some(text)
    }

    /// Reads metadata back from a submission: bounded and well-formed, or `None`.
    pub(super) fn parse(text: &str) -> Option<(RequestId, MessageRef, Self)> {
        if text.chars().count() > METADATA_MAX_CHARS {
            return None;
        }
        let metadata: FormMetadata = serde_json::from_str(text).ok()?;
        let id = RequestId::parse(&metadata.request_id).ok()?;
        let sane = is_slack_id(&metadata.channel)
            && is_slack_id(&metadata.ts)
            && (1..=MAX_QUESTIONS).contains(&metadata.items);
        if !sane {
            return None;
        }
        let message = MessageRef { conversation: metadata.channel.clone(), message: metadata.ts.clone() };
        Some((id, message, metadata))
    }
}

/// Whether `text` looks like a Slack id or ts: short, letters, digits, `.`, `_`, `-`.
pub(super) fn is_slack_id(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= SLACK_ID_MAX_CHARS
        && text.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

fn to_json<T: Serialize>(value: &T) -> String {
    // Plain structs of strings and numbers always serialise.
    serde_json::to_string(value).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn id() -> RequestId {
        RequestId::parse("0190f1d2-7a3b-7c4d-8e5f-6a7b8c9d0e1f").unwrap()
    }

    #[test]
    fn buttons_round_trip_and_odd_ids_are_refused() {
        for button in [Button::Option(3), Button::Other, Button::Comment, Button::Form, Button::Submit, Button::Skip] {
            assert_eq!(Button::parse(&button.action_id()), Some(button));
        }
        for odd in ["beckon.option.", "beckon.option.-1", "beckon.option.123", "beckon.option.1 ", "other"] {
            assert_eq!(Button::parse(odd), None, "{odd}");
        }
    }

    #[test]
    fn a_long_form_is_cut_to_fit_a_button_value() {
        let long = "\"".repeat(2000);
        let question = |q: &str| json!({"question": q, "header": "H", "options": [{"label": "A\"\"\"\"\"\""}, {"label": "B"}, {"label": "C"}, {"label": "D"}]});
        let questions: Vec<_> = (0..4).map(|i| question(&format!("{long}{i}"))).collect();
        let request = QuestionRequest::parse(&json!({"questions": questions})).unwrap();
        let value = ButtonValue::with_form(id(), &request);
        assert!(value.chars().count() <= VALUE_MAX_CHARS);
        let (read_id, read) = ButtonValue::parse(&value).unwrap();
        assert_eq!(read_id, id());
        assert_eq!(read.form.len(), 4);
    }

    #[test]
    fn metadata_names_its_message_and_refuses_odd_ids() {
        let message = MessageRef { conversation: "C123".into(), message: "1700000000.000100".into() };
        let text = FormMetadata::encode(FormKind::Other, id(), &message, 1).unwrap();
        let (read_id, read_message, metadata) = FormMetadata::parse(&text).unwrap();
        assert_eq!((read_id, read_message, metadata.kind), (id(), message, FormKind::Other));
        let forged = text.replace("C123", "C1<script>");
        assert!(FormMetadata::parse(&forged).is_none());
        assert!(FormMetadata::parse(&text.replace("\"n\":1", "\"n\":9")).is_none());
    }
}
