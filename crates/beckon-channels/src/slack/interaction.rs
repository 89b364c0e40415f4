//! Interactive payloads (a button pressed on a question's message, a form submitted) read into
//! presses, and buttons that open a form read into the form to open.
//!
//! A payload is hostile input even over Slack's socket: every field read is optional to serde,
//! ids must look like Slack ids, indexes must be small numbers, texts are bounded, and anything
//! that does not read is dropped with a warning that names no secret and no text. The request
//! id and the message are reported exactly as the payload has them; the worker checks that
//! they are a pair it recorded.

use std::collections::HashMap;

use beckon_core::RequestId;
use serde::Deserialize;
use serde_json::Value;

use super::controls::{
    Button, ButtonValue, FormKind, FormMetadata, is_slack_id, note_id, parse_option_value, pick_id, text_id,
};
use super::modal;
use super::reply::Reply;
use super::text::cut;
use crate::channel::{Action, ItemAnswer, MessageRef, Person, Press};

/// Longest name kept for a person.
const NAME_MAX_CHARS: usize = 80;
/// Longest trigger id accepted.
const TRIGGER_MAX_CHARS: usize = 255;
/// Longest text kept from one input (the answer's own checks are stricter).
const INPUT_MAX_CHARS: usize = 3000;

/// What an interactive payload asks of Beckon.
#[derive(Debug)]
pub enum Interaction {
    /// A press on a question's message, or a form's submission.
    Press(Press<Reply>),
    /// A button that opens a form: open `view` with `trigger_id`.
    OpenForm {
        /// The question.
        request_id: RequestId,
        /// Slack's short-lived permission to open a view for this press.
        trigger_id: String,
        /// The form.
        view: Value,
    },
    /// Nothing to do (a checkbox ticked, a form closed) or a payload that does not read.
    Ignore,
}

/// Reads an interactive envelope's payload.
pub fn read(payload: &Value) -> Interaction {
    match payload.get("type").and_then(Value::as_str) {
        Some("block_actions") => match BlockActions::deserialize(payload) {
            Ok(actions) => block_actions(actions),
            Err(_) => dropped("a block_actions payload does not read"),
        },
        Some("view_submission") => match ViewSubmission::deserialize(payload) {
            Ok(submission) => view_submission(submission),
            Err(_) => dropped("a view_submission payload does not read"),
        },
        _ => Interaction::Ignore,
    }
}

fn dropped(why: &'static str) -> Interaction {
    tracing::warn!(channel = "slack", "{why}; ignored");
    Interaction::Ignore
}

#[derive(Deserialize)]
struct BlockActions {
    user: User,
    #[serde(default)]
    actions: Vec<ActionPayload>,
    #[serde(default)]
    state: Option<State>,
    response_url: Option<String>,
    trigger_id: Option<String>,
    container: Option<Container>,
    channel: Option<IdOnly>,
    message: Option<MessageTs>,
}

#[derive(Deserialize)]
struct ViewSubmission {
    user: User,
    view: View,
}

#[derive(Deserialize)]
struct View {
    private_metadata: Option<String>,
    #[serde(default)]
    state: Option<State>,
}

#[derive(Deserialize)]
struct User {
    id: String,
    username: Option<String>,
    name: Option<String>,
}

#[derive(Deserialize)]
struct ActionPayload {
    action_id: String,
    value: Option<String>,
}

#[derive(Deserialize)]
struct Container {
    channel_id: Option<String>,
    message_ts: Option<String>,
}

#[derive(Deserialize)]
struct IdOnly {
    id: String,
}

#[derive(Deserialize)]
struct MessageTs {
    ts: String,
}

#[derive(Deserialize, Default)]
struct State {
    #[serde(default)]
    values: HashMap<String, HashMap<String, ElementState>>,
}

#[derive(Deserialize)]
struct ElementState {
    #[serde(default)]
    selected_options: Option<Vec<Selected>>,
    #[serde(default)]
    selected_option: Option<Selected>,
    #[serde(default)]
    value: Option<String>,
}

#[derive(Deserialize)]
struct Selected {
    value: String,
}

fn block_actions(payload: BlockActions) -> Interaction {
    let Some(pressed) = payload.actions.first() else { return Interaction::Ignore };
    let Some(button) = Button::parse(&pressed.action_id) else {
        // Ticking a checkbox or a radio button sends an action too; only buttons act.
        if !pressed.action_id.starts_with("beckon.pick.") {
            tracing::warn!(channel = "slack", "a press named an action Beckon does not know; ignored");
        }
        return Interaction::Ignore;
    };
    let Some((request_id, value)) = pressed.value.as_deref().and_then(ButtonValue::parse) else {
        return dropped("a button's value does not read");
    };
    let Some(message) = message_of(&payload) else { return dropped("a press names no message") };
    let Some(person) = person(&payload.user) else { return dropped("a press names no person") };
    let action = match button {
        Button::Option(index) => Action::Answer(vec![ItemAnswer { options: vec![index], ..ItemAnswer::default() }]),
        Button::Skip => Action::Decline,
        Button::Submit => {
            let values = payload.state.map(|state| state.values).unwrap_or_default();
            match read_items(&values, value.items) {
                Some(items) => Action::Answer(items),
                None => return dropped("a submission named an option that does not parse"),
            }
        }
        Button::Other => return open_form(FormKind::Other, request_id, &message, &value, payload.trigger_id),
        Button::Comment => return open_form(FormKind::Comment, request_id, &message, &value, payload.trigger_id),
        Button::Form => return open_form(FormKind::Full, request_id, &message, &value, payload.trigger_id),
    };
    let reply = match payload.response_url {
        Some(url) => Reply::ResponseUrl(url),
        None => Reply::Ephemeral { channel: message.conversation.clone(), user: person.id.clone() },
    };
    Interaction::Press(Press { request_id, message, person, action, reply })
}

fn open_form(
    kind: FormKind,
    request_id: RequestId,
    message: &MessageRef,
    value: &ButtonValue,
    trigger_id: Option<String>,
) -> Interaction {
    let Some(trigger_id) = trigger_id.filter(|t| !t.is_empty() && t.len() <= TRIGGER_MAX_CHARS) else {
        return dropped("a form button came without a trigger id");
    };
    let Some(view) = modal::view(kind, request_id, message, value) else {
        return dropped("a form button's value does not describe its form");
    };
    Interaction::OpenForm { request_id, trigger_id, view }
}

fn view_submission(payload: ViewSubmission) -> Interaction {
    let Some((request_id, message, metadata)) = payload.view.private_metadata.as_deref().and_then(FormMetadata::parse)
    else {
        return dropped("a form's metadata does not read");
    };
    let Some(person) = person(&payload.user) else { return dropped("a form names no person") };
    let values = payload.view.state.map(|state| state.values).unwrap_or_default();
    let single = match metadata.kind {
        FormKind::Other | FormKind::Comment => true,
        FormKind::Full => false,
    };
    if single && metadata.items != 1 {
        return dropped("a single-question form names several questions");
    }
    let Some(items) = read_items(&values, metadata.items) else {
        return dropped("a form named an option that does not parse");
    };
    let reply = Reply::Ephemeral { channel: message.conversation.clone(), user: person.id.clone() };
    Interaction::Press(Press { request_id, message, person, action: Action::Answer(items), reply })
}

/// The message a press came from: the container's channel and ts, else the payload's channel
/// and message.
fn message_of(payload: &BlockActions) -> Option<MessageRef> {
    let container = payload.container.as_ref();
    let channel =
        container.and_then(|c| c.channel_id.clone()).or_else(|| payload.channel.as_ref().map(|c| c.id.clone()))?;
    let ts = container.and_then(|c| c.message_ts.clone()).or_else(|| payload.message.as_ref().map(|m| m.ts.clone()))?;
    (is_slack_id(&channel) && is_slack_id(&ts)).then_some(MessageRef { conversation: channel, message: ts })
}

fn person(user: &User) -> Option<Person> {
    if !is_slack_id(&user.id) {
        return None;
    }
    let name = user
        .username
        .as_deref()
        .or(user.name.as_deref())
        .map(|name| cut(&name.chars().filter(|c| !c.is_control()).collect::<String>(), NAME_MAX_CHARS))
        .filter(|name| !name.trim().is_empty());
    Some(Person { id: user.id.clone(), name })
}

/// One answer per question from a message's or form's input state: picked option indexes,
/// the text input, the comment. `None` if a picked value is not an option index.
fn read_items(values: &HashMap<String, HashMap<String, ElementState>>, count: usize) -> Option<Vec<ItemAnswer>> {
    let element = |id: String| values.get(&id).and_then(|block| block.get(&id));
    (0..count)
        .map(|index| {
            let mut options = Vec::new();
            if let Some(pick) = element(pick_id(index)) {
                let picked = pick.selected_options.iter().flatten().chain(pick.selected_option.as_ref());
                for selected in picked {
                    options.push(parse_option_value(&selected.value)?);
                }
            }
            options.sort_unstable();
            options.dedup();
            let text = |id: String| {
                element(id)
                    .and_then(|input| input.value.as_deref())
                    .map(str::trim)
                    .filter(|text| !text.is_empty())
                    .map(|text| cut(text, INPUT_MAX_CHARS))
            };
            Some(ItemAnswer { options, other: text(text_id(index)), comment: text(note_id(index)) })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use beckon_core::QuestionRequest;
    use serde_json::json;

    use super::*;

    const ID: &str = "0190f1d2-7a3b-7c4d-8e5f-6a7b8c9d0e1f";

    fn single() -> QuestionRequest {
        QuestionRequest::parse(
            &json!({"questions": [{"question": "DB?", "options": [{"label": "A"}, {"label": "B"}]}]}),
        )
        .unwrap()
    }

    fn press(action_id: &str, value: &str, state: Value) -> Value {
        json!({
            "type": "block_actions",
            "user": {"id": "U1", "username": "ada", "name": "ada"},
            "actions": [{"action_id": action_id, "value": value, "type": "button"}],
            "container": {"type": "message", "message_ts": "1700000000.000100", "channel_id": "C1"},
            "trigger_id": "1.2.abc",
            "response_url": "https://hooks.slack.com/actions/T/1/x",
            "state": {"values": state},
        })
    }

    fn plain_value() -> String {
        ButtonValue::plain(RequestId::parse(ID).unwrap(), &single())
    }

    #[test]
    fn an_option_button_is_a_press_on_its_message() {
        let Interaction::Press(press) = read(&press("beckon.option.1", &plain_value(), json!({}))) else { panic!() };
        assert_eq!(press.request_id.to_string(), ID);
        assert_eq!(press.message, MessageRef { conversation: "C1".into(), message: "1700000000.000100".into() });
        assert_eq!(press.person, Person { id: "U1".into(), name: Some("ada".into()) });
        assert_eq!(press.action, Action::Answer(vec![ItemAnswer { options: vec![1], ..ItemAnswer::default() }]));
        assert!(matches!(press.reply, Reply::ResponseUrl(_)));
    }

    #[test]
    fn submit_reads_the_pickers() {
        let state = json!({"beckon.pick.0": {"beckon.pick.0": {"type": "checkboxes", "selected_options": [{"value": "2"}, {"value": "0"}]}}});
        let Interaction::Press(press) = read(&press("beckon.submit", &plain_value(), state)) else { panic!() };
        assert_eq!(press.action, Action::Answer(vec![ItemAnswer { options: vec![0, 2], ..ItemAnswer::default() }]));
    }

    #[test]
    fn hostile_payloads_are_dropped() {
        let bad_index = json!({"beckon.pick.0": {"beckon.pick.0": {"selected_options": [{"value": "1e9"}]}}});
        assert!(matches!(read(&press("beckon.submit", &plain_value(), bad_index)), Interaction::Ignore));
        assert!(matches!(read(&press("beckon.option.x", &plain_value(), json!({}))), Interaction::Ignore));
        assert!(matches!(read(&press("beckon.option.1", "not json", json!({}))), Interaction::Ignore));
        let mut forged = press("beckon.option.1", &plain_value(), json!({}));
        forged["container"]["channel_id"] = json!("C1 <x>");
        assert!(matches!(read(&forged), Interaction::Ignore));
        assert!(matches!(read(&json!({"type": "block_actions", "user": 5})), Interaction::Ignore));
        assert!(matches!(read(&json!("nothing")), Interaction::Ignore));
    }

    #[test]
    fn a_form_button_opens_its_form() {
        let value = ButtonValue::with_form(RequestId::parse(ID).unwrap(), &single());
        let Interaction::OpenForm { trigger_id, view, .. } = read(&press("beckon.other", &value, json!({}))) else {
            panic!()
        };
        assert_eq!(trigger_id, "1.2.abc");
        assert_eq!(view["type"], "modal");
    }

    #[test]
    fn a_submitted_form_is_a_press_on_the_message_it_names() {
        let message = MessageRef { conversation: "C1".into(), message: "1700000000.000100".into() };
        let metadata = FormMetadata::encode(FormKind::Other, RequestId::parse(ID).unwrap(), &message, 1).unwrap();
        let payload = json!({
            "type": "view_submission",
            "user": {"id": "U1", "name": "ada"},
            "view": {"private_metadata": metadata, "state": {"values": {
                "beckon.text.0": {"beckon.text.0": {"type": "plain_text_input", "value": " Friday "}},
                "beckon.note.0": {"beckon.note.0": {"type": "plain_text_input", "value": null}}
            }}}
        });
        let Interaction::Press(press) = read(&payload) else { panic!() };
        assert_eq!(press.message, message);
        let expected = ItemAnswer { options: vec![], other: Some("Friday".into()), comment: None };
        assert_eq!(press.action, Action::Answer(vec![expected]));
        assert!(matches!(press.reply, Reply::Ephemeral { .. }));
    }
}
