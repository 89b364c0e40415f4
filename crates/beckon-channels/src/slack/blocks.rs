//! A question's Slack message, as Block Kit: who asks, what is asked, and the controls to
//! answer — and the same message once the question has ended, with its controls gone.
//!
//! Every agent-written text (the asker, questions, headers, labels, descriptions, an approval's
//! preview) is escaped before it goes into mrkdwn and cut to its field's limit: Slack would
//! otherwise read `<!channel>` as a ping, and refuses a whole message for one field too long.
//! Controls follow the question's shape:
//! - one single-choice question: a button per option, "Other…", "Comment…", "Skip";
//! - only choice questions, several or multi-select: checkboxes or radio buttons per question,
//!   "Submit", "Other…" (a form asking every question) and "Skip";
//! - any free-form question: the questions as text, "Answer…" (the form) and "Skip".
//!
//! An approval whose call does not fit its section (a command padded past the cut would hide
//! its tail) offers no Allow: only Deny, Skip and a line that sends the person to Beckon.

use beckon_core::approval::ApprovalChoice;
use beckon_core::{AnsweredVia, ChoiceQuestion, QuestionItem, QuestionRequest, RequestId};
use beckon_store::QuestionStatus;
use serde_json::{Value, json};

use super::controls::{Button, ButtonValue, option_value, pick_id};
use super::text::{FALLBACK_MAX_CHARS, LABEL_MAX_CHARS, SECTION_MAX_CHARS, escape, escaped, mrkdwn, plain};
use crate::channel::{Posting, Settled};

/// Longest option description shown under the buttons.
const DESCRIPTION_MAX_CHARS: usize = 300;

/// How a question's message lets the person answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Layout {
    /// One single-choice question: a button per option.
    Buttons,
    /// Choice questions only, several or multi-select: pickers and Submit.
    Pickers,
    /// At least one free-form question: a form.
    Form,
}

impl Layout {
    pub(super) fn of(request: &QuestionRequest) -> Layout {
        let items = request.items();
        if items.iter().any(|item| matches!(item, QuestionItem::FreeForm(_))) {
            return Layout::Form;
        }
        match items {
            [QuestionItem::Choice(choice)] if !choice.multi_select => Layout::Buttons,
            _ => Layout::Pickers,
        }
    }
}

/// The fallback text of a question's message (notifications, screen readers).
pub(super) fn fallback(posting: &Posting) -> String {
    let first = posting.request.items().first().map(QuestionItem::question).unwrap_or_default();
    escaped(&format!("{} asks: {first}", posting.asker), FALLBACK_MAX_CHARS)
}

/// The blocks of a pending question's message.
pub(super) fn question(posting: &Posting) -> Vec<Value> {
    let request = &posting.request;
    let id = posting.request_id;
    let layout = Layout::of(request);
    let mut blocks = vec![asker(&posting.asker)];
    for (index, item) in request.items().iter().enumerate() {
        blocks.push(item_text(item));
        match (layout, item) {
            (Layout::Buttons, QuestionItem::Choice(choice)) => {
                blocks.extend(approval_preview(request));
                if !shows_whole(posting) {
                    blocks.push(context(format!(
                        "This call is too long to show here in full, so it cannot be allowed here. Open Beckon to read it whole: `beckon://question/{id}`"
                    )));
                }
                blocks.extend(descriptions(choice));
            }
            (Layout::Pickers, QuestionItem::Choice(choice)) => blocks.push(picker(index, choice)),
            (Layout::Form, QuestionItem::Choice(choice)) => blocks.extend(descriptions(choice)),
            (Layout::Form, QuestionItem::FreeForm(free)) => {
                let hint = free.schema.description.as_deref().or(free.schema.title.as_deref());
                blocks.extend(hint.map(|hint| context(escaped(hint, DESCRIPTION_MAX_CHARS))));
            }
            // A free-form question always makes the layout a form.
            (Layout::Buttons | Layout::Pickers, QuestionItem::FreeForm(_)) => {}
        }
    }
    let plain_value = ButtonValue::plain(id, request);
    let form_value = ButtonValue::with_form(id, request);
    let mut buttons = Vec::new();
    match (layout, request.items()) {
        (Layout::Buttons, [QuestionItem::Choice(choice)]) => {
            let approval = request.approval().is_some();
            let whole = shows_whole(posting);
            for (index, option) in choice.options.iter().enumerate() {
                if approval && !whole && ApprovalChoice::named(&option.label) != Some(ApprovalChoice::Deny) {
                    continue;
                }
                let style = if approval { approval_style(&option.label) } else { None };
                buttons.push(button(Button::Option(index), &option.label, &plain_value, style));
            }
            buttons.push(button(Button::Other, "Other…", &form_value, None));
            buttons.push(button(Button::Comment, "Comment…", &form_value, None));
        }
        (Layout::Pickers, _) => {
            buttons.push(button(Button::Submit, "Submit", &plain_value, Some("primary")));
            buttons.push(button(Button::Form, "Other…", &form_value, None));
        }
        (Layout::Form, _) | (Layout::Buttons, _) => {
            buttons.push(button(Button::Form, "Answer…", &form_value, Some("primary")));
        }
    }
    buttons.push(button(Button::Skip, "Skip", &plain_value, None));
    blocks.push(json!({"type": "actions", "block_id": "beckon.actions", "elements": buttons}));
    blocks
}

/// Whether the message shows an approval's call whole (anything else is shown whole or cut
/// where nothing is allowed by it).
pub(super) fn shows_whole(posting: &Posting) -> bool {
    posting.request.approval().is_none_or(|approval| escape(&approval.preview()).chars().count() <= SECTION_MAX_CHARS)
}

/// The blocks of an ended question's message: who asked, what, and how it ended; no controls.
pub(super) fn settled(posting: &Posting, settled: &Settled) -> Vec<Value> {
    let mut blocks = vec![asker(&posting.asker)];
    blocks.extend(posting.request.items().iter().map(item_text));
    blocks.push(json!({"type": "section", "text": mrkdwn(outcome_line(settled))}));
    blocks
}

/// "*Answered: Postgres — by @ada via Slack*", escaped for mrkdwn.
pub(super) fn outcome_line(settled: &Settled) -> String {
    format!("*{}*", escaped(&outcome_text(settled), SECTION_MAX_CHARS - 2))
}

/// "Answered: Postgres — by @ada via Slack", as text.
fn outcome_text(settled: &Settled) -> String {
    let status = match settled.status {
        QuestionStatus::Pending => "Pending",
        QuestionStatus::Answered => "Answered",
        QuestionStatus::Declined => "Declined",
        QuestionStatus::Expired => "Expired",
        QuestionStatus::Cancelled => "Cancelled",
    };
    let mut line = format!("{status}: {}", settled.summary.trim());
    let by = settled.by.as_deref().map(str::trim).filter(|by| !by.is_empty());
    let channel_handle = matches!(settled.via, Some(AnsweredVia::Slack | AnsweredVia::Telegram));
    match (by, settled.via) {
        (Some(by), via) => {
            let at = if channel_handle && !by.starts_with('@') { "@" } else { "" };
            line.push_str(&format!(" — by {at}{by}"));
            if let Some(via) = via {
                line.push_str(&format!(" via {}", via_title(via)));
            }
        }
        (None, Some(via)) => line.push_str(&format!(" — via {}", via_title(via))),
        (None, None) => {}
    }
    line
}

fn via_title(via: AnsweredVia) -> &'static str {
    match via {
        AnsweredVia::Window => "the Beckon window",
        AnsweredVia::Notification => "a notification",
        AnsweredVia::Tray => "the tray menu",
        AnsweredVia::DeepLink => "a link",
        AnsweredVia::Http => "the HTTP API",
        AnsweredVia::Mcp => "MCP",
        AnsweredVia::Cli => "the beckon command",
        AnsweredVia::Slack => "Slack",
        AnsweredVia::Telegram => "Telegram",
        AnsweredVia::Rule => "a rule",
    }
}

fn asker(asker: &str) -> Value {
    json!({"type": "section", "text": mrkdwn(format!("*{}* asks", escaped(asker, 500)))})
}

/// The question, after its header chip.
fn item_text(item: &QuestionItem) -> Value {
    let header = item.header().map(|header| format!("`{}`  ", escaped(header, 40))).unwrap_or_default();
    let question = escaped(item.question(), SECTION_MAX_CHARS - header.chars().count() - 4);
    json!({"type": "section", "text": mrkdwn(format!("{header}*{question}*"))})
}

/// An approval's preview of the call (Markdown with code fences, which mrkdwn shares).
fn approval_preview(request: &QuestionRequest) -> Option<Value> {
    let preview = request.approval()?.preview();
    Some(json!({"type": "section", "text": mrkdwn(escaped(&preview, SECTION_MAX_CHARS))}))
}

/// Each described option as "*Label*: description", under the question.
fn descriptions(choice: &ChoiceQuestion) -> Option<Value> {
    let elements: Vec<Value> = choice
        .options
        .iter()
        .filter_map(|option| {
            let description = option.description.as_deref()?.trim();
            (!description.is_empty()).then(|| {
                mrkdwn(format!(
                    "*{}*: {}",
                    escaped(&option.label, LABEL_MAX_CHARS),
                    escaped(description, DESCRIPTION_MAX_CHARS)
                ))
            })
        })
        .collect();
    (!elements.is_empty()).then(|| json!({"type": "context", "elements": elements}))
}

fn context(text: String) -> Value {
    json!({"type": "context", "elements": [mrkdwn(text)]})
}

/// Checkboxes (multi-select) or radio buttons for question `index`.
fn picker(index: usize, choice: &ChoiceQuestion) -> Value {
    let id = pick_id(index);
    json!({"type": "actions", "block_id": id, "elements": [picker_element(&id, choice)]})
}

/// The checkboxes or radio buttons of `choice`, values being option indexes (also used in
/// forms).
pub(super) fn picker_element(action_id: &str, choice: &ChoiceQuestion) -> Value {
    let options: Vec<Value> = choice
        .options
        .iter()
        .enumerate()
        .map(|(index, option)| {
            let mut object = json!({"text": plain(&option.label, LABEL_MAX_CHARS), "value": option_value(index)});
            if let Some(description) = option.description.as_deref().filter(|d| !d.trim().is_empty()) {
                object["description"] = plain(description, LABEL_MAX_CHARS);
            }
            object
        })
        .collect();
    let kind = if choice.multi_select { "checkboxes" } else { "radio_buttons" };
    json!({"type": kind, "action_id": action_id, "options": options})
}

fn button(control: Button, label: &str, value: &str, style: Option<&str>) -> Value {
    let mut button = json!({"type": "button", "action_id": control.action_id(), "text": plain(label, LABEL_MAX_CHARS), "value": value});
    if let Some(style) = style {
        button["style"] = json!(style);
    }
    button
}

fn approval_style(label: &str) -> Option<&'static str> {
    match ApprovalChoice::named(label)? {
        ApprovalChoice::Allow | ApprovalChoice::AllowAlways => Some("primary"),
        ApprovalChoice::Deny => Some("danger"),
    }
}

/// The message metadata event type that marks Beckon's question messages.
pub(super) const EVENT_TYPE: &str = "beckon_question";
/// The message metadata that lets a crashed post be found again.
pub(super) fn metadata(id: RequestId) -> Value {
    json!({"event_type": EVENT_TYPE, "event_payload": {"request_id": id.to_string()}})
}

/// Fallback text of an ended question's message.
pub(super) fn settled_fallback(posting: &Posting, settled: &Settled) -> String {
    escaped(&format!("{}: {}", posting.asker, outcome_text(settled)), FALLBACK_MAX_CHARS)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn posting(request: Value) -> Posting {
        Posting {
            request_id: RequestId::parse("0190f1d2-7a3b-7c4d-8e5f-6a7b8c9d0e1f").unwrap(),
            asker: "<!channel> & co".into(),
            request: QuestionRequest::parse(&request).unwrap(),
            created_at_ms: 0,
            to: None,
        }
    }

    fn action_ids(blocks: &[Value]) -> Vec<String> {
        blocks
            .iter()
            .filter(|block| block["type"] == "actions")
            .flat_map(|block| block["elements"].as_array().cloned().unwrap_or_default())
            .map(|element| element["action_id"].as_str().unwrap().to_owned())
            .collect()
    }

    #[test]
    fn a_single_choice_gets_a_button_per_option_and_escaped_text() {
        let posting = posting(json!({"questions": [{"question": "DB <b>?", "header": "DB", "options": [
            {"label": "Postgres", "description": "the usual"}, {"label": "SQLite"}]}]}));
        let blocks = question(&posting);
        assert_eq!(
            action_ids(&blocks),
            ["beckon.option.0", "beckon.option.1", "beckon.other", "beckon.comment", "beckon.skip"]
        );
        let text = serde_json::to_string(&blocks).unwrap();
        assert!(text.contains("&lt;!channel&gt; &amp; co"), "{text}");
        assert!(text.contains("DB &lt;b&gt;?"), "{text}");
        assert!(!text.contains("<!channel>"), "{text}");
        assert!(text.contains("*Postgres*: the usual"), "{text}");
    }

    #[test]
    fn several_questions_get_pickers_and_submit() {
        let posting = posting(json!({"questions": [
            {"question": "Areas?", "header": "Areas", "multiSelect": true, "options": [{"label": "Auth"}, {"label": "Billing"}]},
            {"question": "DB?", "header": "DB", "options": [{"label": "Postgres"}, {"label": "SQLite"}]}]}));
        let blocks = question(&posting);
        assert_eq!(Layout::of(&posting.request), Layout::Pickers);
        assert_eq!(
            action_ids(&blocks),
            ["beckon.pick.0", "beckon.pick.1", "beckon.submit", "beckon.form", "beckon.skip"]
        );
        let kinds: Vec<&str> = blocks
            .iter()
            .filter(|b| b["type"] == "actions")
            .map(|b| b["elements"][0]["type"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["checkboxes", "radio_buttons", "button"]);
    }

    #[test]
    fn a_free_form_question_is_answered_in_a_form() {
        let posting = posting(json!({"questions": [{"question": "How many?", "schema": {"type": "integer"}}]}));
        assert_eq!(action_ids(&question(&posting)), ["beckon.form", "beckon.skip"]);
    }

    #[test]
    fn every_value_and_text_fits_slack_limits() {
        let long = "x".repeat(1000);
        let options: Vec<Value> =
            (0..4).map(|i| json!({"label": format!("{i}{}", "é".repeat(99)), "description": long})).collect();
        let questions: Vec<Value> = (0..4)
            .map(|i| json!({"question": format!("{i}{}", "<".repeat(2000)), "header": "H", "options": options, "multiSelect": true}))
            .collect();
        let blocks = question(&posting(json!({"questions": questions})));
        for element in blocks.iter().flat_map(|b| b["elements"].as_array().cloned().unwrap_or_default()) {
            if let Some(value) = element["value"].as_str() {
                assert!(value.chars().count() <= 2000);
            }
            if let Some(text) = element["text"]["text"].as_str() {
                assert!(text.chars().count() <= 75, "{text}");
            }
        }
        for block in &blocks {
            if let Some(text) = block["text"]["text"].as_str() {
                assert!(text.chars().count() <= 3000);
            }
        }
    }

    #[test]
    fn the_outcome_names_who_answered_and_where() {
        let settled = Settled {
            status: QuestionStatus::Answered,
            summary: "Postgres".into(),
            via: Some(AnsweredVia::Slack),
            by: Some("ada".into()),
        };
        assert_eq!(outcome_line(&settled), "*Answered: Postgres — by @ada via Slack*");
        let expired =
            Settled { status: QuestionStatus::Expired, summary: "nobody answered in time".into(), via: None, by: None };
        assert_eq!(outcome_line(&expired), "*Expired: nobody answered in time*");
    }

    #[test]
    fn an_ended_message_has_no_controls() {
        let posting = posting(json!({"questions": [{"question": "DB?", "options": [{"label": "A"}, {"label": "B"}]}]}));
        let ended = Settled { status: QuestionStatus::Declined, summary: "skipped".into(), via: None, by: None };
        let blocks = settled(&posting, &ended);
        assert!(blocks.iter().all(|b| b["type"] == "section"));
    }
}
