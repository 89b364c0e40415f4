//! What Telegram sends: any bytes, read as the answer to `getUpdates` by the Bot API client
//! (`read_updates`); each update in it is then read as the long-poll loop hands it to the bot
//! (`read_update`), one after another, by a bot in use: chat 1001 paired, the code K7QMXT3A
//! waiting to pair another, and a written reply to message 7 in chat 1001 answering the
//! question asked on message 5. The bot's token is empty, so each call it makes to the Bot API
//! (a press dismissed, a prompt sent) is refused before it leaves: nothing reaches a network.
//!
//! Invariants: a refused answer says why, within bounds; only the paired chat is heard, and
//! no update pairs another chat in its place (that waits for the person's confirmation); a
//! press names a message of that chat, a person with a short name without control characters,
//! and is told back where it came from; a written answer is at most Telegram's 4096
//! characters and answers the question its reply names; a pairing code handed on comes from
//! the private chat that sent it, is one word of at most 64 bytes, and is never the bot's own
//! code while it waits.

#![no_main]

use std::sync::{Arc, LazyLock};

use beckon_channels::telegram::fuzzing::{in_use, read_update, read_updates};
use beckon_channels::telegram::{PairingCode, Reply, Telegram, TelegramConfig, paired_chat, pairing};
use beckon_channels::{Action, Error, Heard, MemoryState, Press};
use beckon_core::RequestId;
use libfuzzer_sys::fuzz_target;

const PAIRED: i64 = 1001;
const CODE: &str = "K7QMXT3A";
const PROMPT: i64 = 7;
const QUESTION_MESSAGE: i64 = 5;
const REQUEST: &str = "0190f1d2-7a3b-7c4d-8e5f-6a7b8c9d0e1f";
/// Telegram's own description of a refusal is cut to 300 characters; Beckon's words go around.
const DETAIL_MAX_CHARS: usize = 400;
const TEXT_MAX_CHARS: usize = 4096;
const QUERY_ID_MAX_BYTES: usize = 128;
const NAME_MAX_CHARS: usize = 64;
const CODE_MAX_BYTES: usize = 64;

static RUNTIME: LazyLock<tokio::runtime::Runtime> =
    LazyLock::new(|| tokio::runtime::Builder::new_current_thread().build().expect("a runtime"));
static HTTP: LazyLock<reqwest::Client> = LazyLock::new(reqwest::Client::new);

fuzz_target!(|bytes: &[u8]| {
    RUNTIME.block_on(read(bytes));
});

async fn read(bytes: &[u8]) {
    let state = Arc::new(MemoryState::default());
    let request = RequestId::parse(REQUEST).expect("a request id");
    let code = PairingCode { code: CODE.into(), expires_at_ms: 600_000 };
    in_use(&*state, PAIRED, &code, PROMPT, QUESTION_MESSAGE, request).await.expect("the state is set");
    let bot = Telegram::new(TelegramConfig::new(""), HTTP.clone(), state.clone());
    let updates = match read_updates(&bot, 200, bytes) {
        Ok(updates) => updates,
        Err(err) => return check_refusal(&err),
    };
    for raw in updates {
        let waiting = pairing(&*state, 0).await.expect("the state reads").code;
        let Some(Some(heard)) = read_update(&bot, raw).await else { continue };
        match heard {
            Heard::Press(press) => check_press(&press, request),
            Heard::PairingCode { person, code, reply } => {
                let Reply::Pairing { chat } = reply else { panic!("a code told back as {reply:?}") };
                assert_eq!(person.id, chat.to_string(), "a code told to another chat");
                assert!(!code.is_empty() && code.len() <= CODE_MAX_BYTES, "code {code:?}");
                assert!(!code.chars().any(char::is_whitespace), "code {code:?}");
                let own = waiting.is_some_and(|waiting| waiting.code.eq_ignore_ascii_case(&code));
                assert!(!own, "the bot's own waiting code handed on");
            }
        }
    }
    let paired = paired_chat(&*state).await.expect("the state reads");
    assert_eq!(paired, Some(PAIRED), "an update paired another chat");
}

fn check_refusal(err: &Error) {
    let text = err.to_string();
    assert!(!text.is_empty());
    if let Error::Refused { detail, .. } | Error::Unreachable { detail, .. } = err {
        assert!(detail.chars().count() <= DETAIL_MAX_CHARS, "a detail of {} characters", detail.chars().count());
    }
}

fn check_press(press: &Press<Reply>, request: RequestId) {
    assert_eq!(press.message.conversation, PAIRED.to_string(), "heard a chat that is not paired");
    assert!(press.message.message.parse::<i64>().is_ok(), "message {:?}", press.message.message);
    if let Some(name) = &press.person.name {
        assert!(!name.is_empty() && name.chars().count() <= NAME_MAX_CHARS, "name {name:?}");
        assert!(!name.chars().any(char::is_control), "name {name:?}");
    }
    match &press.reply {
        Reply::Button { query } => assert!(query.len() <= QUERY_ID_MAX_BYTES, "query of {} bytes", query.len()),
        Reply::Text { chat, .. } => {
            assert_eq!(*chat, PAIRED, "told another chat");
            assert_eq!(press.request_id, request, "a reply answers another question");
            assert_eq!(press.message.message, QUESTION_MESSAGE.to_string());
            let Action::Answer(items) = &press.action else { panic!("a written reply that declines") };
            let [item] = items.as_slice() else { panic!("a written reply to {} questions", items.len()) };
            let text = item.other.as_deref().expect("a written answer");
            assert!(text.chars().count() <= TEXT_MAX_CHARS, "an answer of {} characters", text.chars().count());
        }
        Reply::Pairing { .. } => panic!("a press told back as a pairing"),
    }
}
