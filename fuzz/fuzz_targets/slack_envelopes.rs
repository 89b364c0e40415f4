//! What Slack sends over Socket Mode: any bytes that are text (a WebSocket text frame is UTF-8),
//! read as one frame by the socket's `read_frame`; an envelope's payload is then read as the
//! socket hands it on: an `interactive` one by `read_interaction` (a press, a form submitted,
//! a button that opens a form), an `events_api` one by `pairing_code` (a direct message).
//!
//! Invariants: what is kept of a frame is bounded (an envelope id, its kind, a reason); a press
//! names a message and a person by Slack ids, answers with small sorted option indexes and
//! trimmed, bounded texts, and is told back where it came from; a person's name is short, with
//! no control character; a form opened has a trigger id and a view whose metadata, submitted
//! back, is a press on the same question; a pairing code is a short run of letters and digits
//! from a person in a direct message, told back to them there.

#![no_main]

use beckon_channels::slack::Reply;
use beckon_channels::slack::fuzzing::{Frame, Interaction, pairing_code, read_frame, read_interaction};
use beckon_channels::{Action, Heard, Person, Press};
use libfuzzer_sys::fuzz_target;
use serde_json::json;

const ENVELOPE_ID_MAX_CHARS: usize = 128;
const KIND_MAX_CHARS: usize = 64;
const SLACK_ID_MAX_CHARS: usize = 64;
const NAME_MAX_CHARS: usize = 80;
const TRIGGER_MAX_CHARS: usize = 255;
const INPUT_MAX_CHARS: usize = 3000;
const CODE_MAX_CHARS: usize = 64;
/// Option indexes are one or two digits.
const INDEX_LIMIT: usize = 100;

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else { return };
    match read_frame(text) {
        Frame::Hello | Frame::Other => {}
        Frame::Disconnect { reason } => assert!(reason.chars().count() <= KIND_MAX_CHARS, "reason {reason:?}"),
        Frame::Envelope { id, kind, payload } => {
            assert!(!id.is_empty() && id.chars().count() <= ENVELOPE_ID_MAX_CHARS, "envelope id {id:?}");
            assert!(kind.chars().count() <= KIND_MAX_CHARS, "kind {kind:?}");
            match kind.as_str() {
                "interactive" => check_interaction(read_interaction(&payload)),
                "events_api" => {
                    if let Some(heard) = pairing_code(&payload) {
                        check_pairing_code(heard);
                    }
                }
                _ => {}
            }
        }
    }
});

fn is_slack_id(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= SLACK_ID_MAX_CHARS
        && text.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

fn check_person(person: &Person) {
    assert!(is_slack_id(&person.id), "person {:?}", person.id);
    if let Some(name) = &person.name {
        assert!(!name.trim().is_empty(), "a blank name");
        assert!(name.chars().count() <= NAME_MAX_CHARS, "name of {} characters", name.chars().count());
        assert!(!name.chars().any(char::is_control), "name {name:?}");
    }
}

fn check_text(text: &Option<String>) {
    if let Some(text) = text {
        assert!(!text.is_empty() && text.trim() == text, "text {text:?}");
        assert!(text.chars().count() <= INPUT_MAX_CHARS, "text of {} characters", text.chars().count());
    }
}

fn check_press(press: &Press<Reply>) {
    assert!(is_slack_id(&press.message.conversation), "conversation {:?}", press.message.conversation);
    assert!(is_slack_id(&press.message.message), "message {:?}", press.message.message);
    check_person(&press.person);
    if let Action::Answer(items) = &press.action {
        assert!(!items.is_empty(), "an answer to no question");
        for item in items {
            assert!(item.options.windows(2).all(|pair| pair[0] < pair[1]), "options {:?}", item.options);
            assert!(item.options.iter().all(|&option| option < INDEX_LIMIT), "options {:?}", item.options);
            check_text(&item.other);
            check_text(&item.comment);
        }
    }
    if let Reply::Ephemeral { channel, user } = &press.reply {
        assert_eq!(channel, &press.message.conversation, "told elsewhere than the message");
        assert_eq!(user, &press.person.id, "told to someone else");
    }
}

fn check_interaction(interaction: Interaction) {
    match interaction {
        Interaction::Ignore => {}
        Interaction::Press(press) => check_press(&press),
        Interaction::OpenForm { request_id, trigger_id, view } => {
            assert!(!trigger_id.is_empty() && trigger_id.len() <= TRIGGER_MAX_CHARS, "trigger {trigger_id:?}");
            assert_eq!(view["type"], "modal", "{view}");
            let submitted = json!({"type": "view_submission", "user": {"id": "U0ADA"},
                "view": {"private_metadata": view["private_metadata"], "state": {"values": {}}}});
            let Interaction::Press(press) = read_interaction(&submitted) else {
                panic!("the form's own metadata does not read back: {}", view["private_metadata"])
            };
            assert_eq!(press.request_id, request_id, "the form answers another question");
            check_press(&press);
        }
    }
}

fn check_pairing_code(heard: Heard<Reply>) {
    let Heard::PairingCode { person, code, reply } = heard else { panic!("a direct message heard as a press") };
    assert!(!code.is_empty() && code.chars().count() <= CODE_MAX_CHARS, "code {code:?}");
    assert!(code.chars().all(|c| c.is_ascii_alphanumeric()), "code {code:?}");
    check_person(&person);
    assert!(person.name.is_none(), "a direct message names nobody");
    match reply {
        Reply::Ephemeral { channel, user } => {
            assert!(is_slack_id(&channel), "channel {channel:?}");
            assert_eq!(user, person.id, "told to someone else");
        }
        Reply::ResponseUrl(_) => panic!("a direct message has no response URL"),
    }
}
