//! The forms a question's buttons open (Slack modals): "Other…" (the person's own answer and
//! a comment), "Comment…" (an option and a comment) and "Answer…" (every question: options,
//! an "Other" answer and a comment for a choice, a value for a free-form question).
//!
//! A form is built from what its button's value carries, so nothing needs to be remembered
//! between posting and pressing; its private metadata names the question and the message, so
//! its submission becomes a press on that exact message. Texts from the value are the agent's,
//! escaped again here.

use beckon_core::{ChoiceQuestion, QuestionOption, RequestId};
use serde_json::{Value, json};

use super::blocks::picker_element;
use super::controls::{ButtonValue, FormItem, FormKind, FormMetadata, note_id, option_value, pick_id, text_id};
use super::text::{LABEL_MAX_CHARS, escaped, mrkdwn, plain};
use crate::channel::MessageRef;

/// Slack's limit on a plain_text_input.
const INPUT_MAX_CHARS: usize = 3000;
/// Longest question text repeated in a form.
const QUESTION_MAX_CHARS: usize = 500;

/// The view a button opens for `message`, or `None` when its value does not describe the
/// form (a single-question form for a request of several).
pub(super) fn view(kind: FormKind, id: RequestId, message: &MessageRef, value: &ButtonValue) -> Option<Value> {
    let metadata = FormMetadata::encode(kind, id, message, value.items)?;
    let (title, blocks) = match kind {
        FormKind::Other => ("Other answer", other(single(value)?)),
        FormKind::Comment => ("Comment", comment(single(value)?)?),
        FormKind::Full => {
            if value.form.len() != value.items {
                return None;
            }
            ("Answer", value.form.iter().enumerate().flat_map(|(index, item)| full_item(index, item)).collect())
        }
    };
    Some(json!({
        "type": "modal",
        "callback_id": "beckon.form",
        "title": plain(title, 24),
        "submit": plain("Send", 24),
        "close": plain("Cancel", 24),
        "private_metadata": metadata,
        "blocks": blocks,
    }))
}

/// The one question of a single-question form.
fn single(value: &ButtonValue) -> Option<&FormItem> {
    match value.form.as_slice() {
        [item] if value.items == 1 => Some(item),
        _ => None,
    }
}

fn other(item: &FormItem) -> Vec<Value> {
    vec![question(item), text_input(0, "Your answer", false), text_input_note(0, true)]
}

fn comment(item: &FormItem) -> Option<Vec<Value>> {
    let FormItem::Choice { options, .. } = item else { return None };
    let choices: Vec<Value> = options
        .iter()
        .enumerate()
        .map(|(index, label)| json!({"text": plain(label, LABEL_MAX_CHARS), "value": option_value(index)}))
        .collect();
    let select = json!({"type": "static_select", "action_id": pick_id(0), "options": choices});
    Some(vec![question(item), input(pick_id(0), "Answer", select, false), text_input_note(0, false)])
}

fn full_item(index: usize, item: &FormItem) -> Vec<Value> {
    match item {
        FormItem::Choice { question: text, multi, options } => {
            let choice = ChoiceQuestion {
                question: text.clone(),
                header: None,
                options: options
                    .iter()
                    .map(|label| QuestionOption { label: label.clone(), description: None, preview: None })
                    .collect(),
                multi_select: *multi,
            };
            let picker = picker_element(&pick_id(index), &choice);
            vec![
                question(item),
                input(pick_id(index), if *multi { "Choose any" } else { "Choose one" }, picker, true),
                text_input(index, "Or your own answer", true),
                text_input_note(index, true),
            ]
        }
        FormItem::Text { .. } => vec![question(item), text_input(index, "Answer", false), text_input_note(index, true)],
    }
}

fn question(item: &FormItem) -> Value {
    let (FormItem::Choice { question, .. } | FormItem::Text { question }) = item;
    json!({"type": "section", "text": mrkdwn(format!("*{}*", escaped(question, QUESTION_MAX_CHARS)))})
}

fn text_input(index: usize, label: &str, optional: bool) -> Value {
    let element = json!({"type": "plain_text_input", "action_id": text_id(index), "multiline": true, "max_length": INPUT_MAX_CHARS});
    input(text_id(index), label, element, optional)
}

fn text_input_note(index: usize, optional: bool) -> Value {
    let element = json!({"type": "plain_text_input", "action_id": note_id(index), "multiline": true, "max_length": INPUT_MAX_CHARS});
    input(note_id(index), "Comment", element, optional)
}

fn input(block_id: String, label: &str, element: Value, optional: bool) -> Value {
    json!({"type": "input", "block_id": block_id, "label": plain(label, 75), "element": element, "optional": optional})
}

#[cfg(test)]
mod tests {
    use beckon_core::QuestionRequest;
    use serde_json::json;

    use super::*;

    fn id() -> RequestId {
        RequestId::parse("0190f1d2-7a3b-7c4d-8e5f-6a7b8c9d0e1f").unwrap()
    }

    fn message() -> MessageRef {
        MessageRef { conversation: "C1".into(), message: "1700000000.000100".into() }
    }

    fn value(request: Value) -> ButtonValue {
        let request = QuestionRequest::parse(&request).unwrap();
        ButtonValue::parse(&ButtonValue::with_form(id(), &request)).unwrap().1
    }

    fn block_ids(view: &Value) -> Vec<&str> {
        view["blocks"].as_array().unwrap().iter().filter_map(|b| b["block_id"].as_str()).collect()
    }

    #[test]
    fn the_other_form_asks_for_text_and_a_comment_and_names_the_message() {
        let value = value(json!({"questions": [{"question": "DB <?>", "options": [{"label": "A"}, {"label": "B"}]}]}));
        let view = view(FormKind::Other, id(), &message(), &value).unwrap();
        assert_eq!(block_ids(&view), ["beckon.text.0", "beckon.note.0"]);
        assert!(view["blocks"][0]["text"]["text"].as_str().unwrap().contains("DB &lt;?&gt;"));
        let (read_id, read_message, _) = FormMetadata::parse(view["private_metadata"].as_str().unwrap()).unwrap();
        assert_eq!((read_id, read_message), (id(), message()));
    }

    #[test]
    fn the_comment_form_offers_the_options() {
        let value = value(json!({"questions": [{"question": "DB?", "options": [{"label": "A"}, {"label": "B"}]}]}));
        let view = view(FormKind::Comment, id(), &message(), &value).unwrap();
        let options = &view["blocks"][1]["element"]["options"];
        assert_eq!(options[1]["value"], "1");
        assert_eq!(options[1]["text"]["text"], "B");
    }

    #[test]
    fn the_full_form_asks_every_question() {
        let value = value(json!({"questions": [
            {"question": "Areas?", "multiSelect": true, "options": [{"label": "A"}, {"label": "B"}]},
            {"question": "How many?", "schema": {"type": "integer"}}]}));
        let view = view(FormKind::Full, id(), &message(), &value).unwrap();
        assert_eq!(
            block_ids(&view),
            ["beckon.pick.0", "beckon.text.0", "beckon.note.0", "beckon.text.1", "beckon.note.1"]
        );
        assert!(super::view(FormKind::Other, id(), &message(), &value).is_none());
    }
}
