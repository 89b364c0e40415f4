//! Direct messages to the app, read for the one thing Beckon takes from them: a code a person
//! got on their team inbox's page, sent to pair their Slack account with them ("pair K7QMXT3A",
//! or the code alone). The app hears these as `message.im` events over Socket Mode.
//!
//! A payload is hostile input: only a plain message a person wrote in a direct message counts
//! (no bot's message, no edit, no other kind of conversation), ids must look like Slack ids, and
//! anything else is passed over without a word in the log of what it said.

use serde::Deserialize;
use serde_json::Value;

use super::controls::is_slack_id;
use super::reply::Reply;
use crate::channel::{Heard, Person};

/// The characters of a code Beckon makes.
const CODE_CHARS: usize = 8;
/// The longest code read after "pair" (this leaves room for a typo, told as pairing nothing).
const CODE_MAX_CHARS: usize = 64;

#[derive(Deserialize)]
struct EventCallback {
    event: Event,
}

#[derive(Deserialize)]
struct Event {
    #[serde(rename = "type")]
    kind: String,
    channel_type: Option<String>,
    subtype: Option<String>,
    bot_id: Option<String>,
    user: Option<String>,
    channel: Option<String>,
    text: Option<String>,
}

/// The pairing code an `events_api` envelope's payload carries, with who sent it and where to
/// tell them what became of it; `None` for any other event.
pub fn pairing_code(payload: &Value) -> Option<Heard<Reply>> {
    let Ok(callback) = EventCallback::deserialize(payload) else {
        tracing::warn!(channel = "slack", "an events_api payload does not read; ignored");
        return None;
    };
    let event = callback.event;
    let written_by_a_person = event.kind == "message"
        && event.channel_type.as_deref() == Some("im")
        && event.subtype.is_none()
        && event.bot_id.is_none();
    if !written_by_a_person {
        return None;
    }
    let (Some(user), Some(channel)) =
        (event.user.filter(|id| is_slack_id(id)), event.channel.filter(|id| is_slack_id(id)))
    else {
        return None;
    };
    let code = code_in(event.text.as_deref().unwrap_or_default())?;
    Some(Heard::PairingCode {
        person: Person { id: user.clone(), name: None },
        code: code.to_owned(),
        reply: Reply::Ephemeral { channel, user },
    })
}

/// The code of "pair <code>", or of a message that is a code alone (a word as long as a code:
/// "thanks" written to the app is not taken for one).
fn code_in(text: &str) -> Option<&str> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let code = match words.as_slice() {
        [code] if code.chars().count() == CODE_CHARS => *code,
        [command, code] if command.eq_ignore_ascii_case("pair") => *code,
        _ => return None,
    };
    (code.chars().count() <= CODE_MAX_CHARS && code.chars().all(|c| c.is_ascii_alphanumeric())).then_some(code)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn event(fields: Value) -> Value {
        let mut event = json!({"type": "message", "channel_type": "im", "user": "U0ADA", "channel": "D0ADA", "text": "pair K7QMXT3A", "ts": "1.2"});
        if let (Some(event), Some(fields)) = (event.as_object_mut(), fields.as_object()) {
            for (key, value) in fields {
                event.insert(key.clone(), value.clone());
            }
        }
        json!({"type": "event_callback", "event": event})
    }

    #[test]
    fn a_code_written_in_a_direct_message_is_heard_with_who_sent_it() {
        let Some(Heard::PairingCode { person, code, reply }) = pairing_code(&event(json!({}))) else {
            panic!("not heard");
        };
        assert_eq!((person.id.as_str(), code.as_str()), ("U0ADA", "K7QMXT3A"));
        assert!(matches!(reply, Reply::Ephemeral { ref channel, ref user } if channel == "D0ADA" && user == "U0ADA"));
        assert!(pairing_code(&event(json!({"text": "k7qmxt3a"}))).is_some(), "the code alone");
    }

    #[test]
    fn anything_but_a_persons_code_in_a_direct_message_is_passed_over() {
        for odd in [
            json!({"channel_type": "channel"}),
            json!({"subtype": "message_changed"}),
            json!({"bot_id": "B1"}),
            json!({"type": "app_mention"}),
            json!({"text": "hello there, bot"}),
            json!({"text": "thanks"}),
            json!({"text": "pair K7QM-XT3A"}),
            json!({"user": "U0 ADA"}),
            json!({"channel": null}),
            json!({"text": format!("pair {}", "A".repeat(65))}),
        ] {
            assert!(pairing_code(&event(odd.clone())).is_none(), "{odd}");
        }
        assert!(pairing_code(&json!({"type": "event_callback"})).is_none());
    }
}
