//! Pairing: which Telegram chat may answer.
//!
//! Anyone can find a bot and write to it, so a bot answers one chat only: the private chat that
//! sent `/start <code>` with a code Beckon showed its own user. What is defended against:
//!
//! - A code found later (in a screenshot, a scrollback, a log). A code is made only when the
//!   person asks to pair a chat, is good for [`PAIRING_LIFETIME`], is used up by its first use,
//!   and is never logged.
//! - A code seen while it is good (over a shoulder, in a shared screen) taking the pairing
//!   away. While a chat is paired, a code used by another chat pairs nothing by itself: that
//!   chat waits, for as long as a code lives, until the person confirms the replacement in
//!   Beckon's window; the window shows which chat asks.
//! - Telling strangers anything: a wrong or expired code gets no reply.
//!
//! The time is passed in; nothing here reads a clock. The code is made on demand from an
//! alphabet without look-alike characters.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::state::ChannelState;

/// State key: the paired chat's id.
pub(super) const CHAT_KEY: &str = "telegram.chat";
/// State key: the pairing code waiting to be used, as a [`PairingCode`] ("" once used). A bare
/// code stored before codes expired reads as none.
pub(super) const CODE_KEY: &str = "telegram.pairing_code";
/// State key: the chat waiting for the person to confirm that it replaces the paired one, as
/// a [`ChatRequest`] ("" once settled).
pub(super) const REQUEST_KEY: &str = "telegram.pairing_request";

/// How long a pairing code is good for, and how long a chat that used one waits for the
/// person's confirmation: long enough to find the bot on a phone, short enough that a code
/// found later is worth nothing.
pub const PAIRING_LIFETIME: Duration = Duration::from_secs(10 * 60);

/// Held while codes and requests are read and changed, so that two callers at once (the
/// settings screen and the listener) never act on a state the other just changed.
static PAIRING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A code to send the bot as `/start <code>`, and when it stops being good.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairingCode {
    /// The code.
    pub code: String,
    /// When it stops being good (Unix ms).
    pub expires_at_ms: i64,
}

/// A chat that used a good code while another chat is paired, waiting for the person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The chat that asks.
    pub chat: i64,
    /// Who sent the code, as Telegram names them ("@handle" or a first name), when known.
    pub name: Option<String>,
    /// When the request lapses unless confirmed (Unix ms).
    pub expires_at_ms: i64,
}

/// Where pairing stands at one moment.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pairing {
    /// The chat that answers questions.
    pub chat: Option<i64>,
    /// The code waiting to be used, while it is good.
    pub code: Option<PairingCode>,
    /// A chat waiting to replace the paired one, while its request is good.
    pub request: Option<ChatRequest>,
}

/// Why a `/start <code>` paired nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refusal {
    /// No code is waiting (none was asked for, or it was used).
    NoCode,
    /// Not the waiting code.
    Wrong,
    /// The waiting code, too late.
    Expired,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Refusal::NoCode => "no code is waiting",
            Refusal::Wrong => "not the waiting code",
            Refusal::Expired => "the code has expired",
        })
    }
}

/// What a `/start <code>` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CodeUse {
    /// Not a `/start` with a code.
    NotACode,
    /// Nothing: the code was not good.
    Refused(Refusal),
    /// The chat is paired (no chat was, or it was this one).
    Paired,
    /// Another chat is paired: this one waits for the person's confirmation.
    AwaitsConfirmation {
        /// The chat paired now.
        paired: i64,
    },
}

/// A replacement the person confirmed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Replacement {
    /// The chat paired before, if any (it is told it no longer is).
    pub previous: Option<i64>,
    /// The chat paired now.
    pub chat: i64,
}

/// Where pairing stands at `now_ms`. Reading makes no code.
pub async fn pairing<S: ChannelState>(state: &S, now_ms: i64) -> Result<Pairing> {
    let _one_at_a_time = PAIRING.lock().await;
    Ok(Pairing {
        chat: paired_chat(state).await?,
        code: waiting_code(state).await?.filter(|code| now_ms < code.expires_at_ms),
        request: waiting_request(state).await?.filter(|request| now_ms < request.expires_at_ms),
    })
}

/// A new code for the person to pair a chat with, good for [`PAIRING_LIFETIME`] from
/// `now_ms`. It replaces any code still waiting and drops a request still waiting: the person
/// asking again starts pairing afresh.
pub async fn new_pairing_code<S: ChannelState>(state: &S, now_ms: i64) -> Result<PairingCode> {
    let _one_at_a_time = PAIRING.lock().await;
    let code =
        PairingCode { code: beckon_runtime::pairing_code(), expires_at_ms: now_ms.saturating_add(lifetime_ms()) };
    state.set(CODE_KEY, &stored(&code)).await?;
    state.set(REQUEST_KEY, "").await?;
    Ok(code)
}

/// The chat that answers questions, once one is paired.
pub async fn paired_chat<S: ChannelState>(state: &S) -> Result<Option<i64>> {
    Ok(state.get(CHAT_KEY).await?.and_then(|chat| chat.parse().ok()))
}

/// Uses the code of `text` (`/start <code>`) sent from the private chat `chat` by `name` at
/// `now_ms`: pairs the chat when none other is paired, or records its request to replace the
/// paired one. A good code is used up either way; a wrong one is not.
pub(super) async fn use_code<S: ChannelState>(
    state: &S,
    chat: i64,
    name: Option<&str>,
    text: &str,
    now_ms: i64,
) -> Result<CodeUse> {
    let Some(given) = start_code(text) else { return Ok(CodeUse::NotACode) };
    let _one_at_a_time = PAIRING.lock().await;
    let Some(waiting) = waiting_code(state).await? else { return Ok(CodeUse::Refused(Refusal::NoCode)) };
    if !given.eq_ignore_ascii_case(&waiting.code) {
        return Ok(CodeUse::Refused(Refusal::Wrong));
    }
    if now_ms >= waiting.expires_at_ms {
        state.set(CODE_KEY, "").await?;
        return Ok(CodeUse::Refused(Refusal::Expired));
    }
    state.set(CODE_KEY, "").await?;
    match paired_chat(state).await? {
        Some(paired) if paired != chat => {
            let request = ChatRequest {
                chat,
                name: name.map(str::to_owned),
                expires_at_ms: now_ms.saturating_add(lifetime_ms()),
            };
            state.set(REQUEST_KEY, &stored(&request)).await?;
            Ok(CodeUse::AwaitsConfirmation { paired })
        }
        _ => {
            state.set(CHAT_KEY, &chat.to_string()).await?;
            Ok(CodeUse::Paired)
        }
    }
}

/// Pairs `chat` in place of the paired chat, as the person confirmed at `now_ms`; none when
/// `chat` is not the chat whose request is waiting (settled, replaced or lapsed meanwhile).
pub(super) async fn confirm<S: ChannelState>(state: &S, chat: i64, now_ms: i64) -> Result<Option<Replacement>> {
    let _one_at_a_time = PAIRING.lock().await;
    let Some(request) = waiting_request(state).await? else { return Ok(None) };
    if request.chat != chat || now_ms >= request.expires_at_ms {
        return Ok(None);
    }
    let previous = paired_chat(state).await?;
    state.set(CHAT_KEY, &chat.to_string()).await?;
    state.set(REQUEST_KEY, "").await?;
    Ok(Some(Replacement { previous: previous.filter(|previous| *previous != chat), chat }))
}

/// Drops the request of `chat`, as the person refused it; whether it was waiting.
pub(super) async fn refuse<S: ChannelState>(state: &S, chat: i64) -> Result<bool> {
    let _one_at_a_time = PAIRING.lock().await;
    if waiting_request(state).await?.is_none_or(|request| request.chat != chat) {
        return Ok(false);
    }
    state.set(REQUEST_KEY, "").await?;
    Ok(true)
}

async fn waiting_code<S: ChannelState>(state: &S) -> Result<Option<PairingCode>> {
    Ok(state.get(CODE_KEY).await?.and_then(|text| serde_json::from_str(&text).ok()))
}

async fn waiting_request<S: ChannelState>(state: &S) -> Result<Option<ChatRequest>> {
    Ok(state.get(REQUEST_KEY).await?.and_then(|text| serde_json::from_str(&text).ok()))
}

fn stored<T: Serialize>(value: &T) -> String {
    // Plain strings and integers: serialising cannot fail.
    serde_json::to_string(value).unwrap_or_default()
}

fn lifetime_ms() -> i64 {
    i64::try_from(PAIRING_LIFETIME.as_millis()).unwrap_or(i64::MAX)
}

/// The code of a `/start <code>` message (also `/start@bot <code>`).
pub(super) fn start_code(text: &str) -> Option<&str> {
    let mut words = text.split_whitespace();
    let command = words.next()?;
    if command != "/start" && !command.starts_with("/start@") {
        return None;
    }
    let code = words.next()?;
    (words.next().is_none() && code.len() <= 64).then_some(code)
}

/// Whether `text` is a `/start` command at all, with or without a code.
pub(super) fn is_start(text: &str) -> bool {
    text.split_whitespace().next().is_some_and(|command| command == "/start" || command.starts_with("/start@"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::MemoryState;

    const MINUTE_MS: i64 = 60_000;
    const ADA: i64 = 42;
    const BOB: i64 = 51;

    async fn code(state: &MemoryState, now_ms: i64) -> String {
        new_pairing_code(state, now_ms).await.unwrap().code
    }

    #[tokio::test]
    async fn a_code_pairs_once() {
        let state = MemoryState::default();
        let made = new_pairing_code(&state, 0).await.unwrap();
        assert_eq!(made.code.len(), 8);
        assert_eq!(made.expires_at_ms, 10 * MINUTE_MS);
        assert_eq!(pairing(&state, 0).await.unwrap().code, Some(made.clone()), "the waiting code is kept");
        let wrong = use_code(&state, 7, None, "/start WRONGONE", 0).await.unwrap();
        assert_eq!(wrong, CodeUse::Refused(Refusal::Wrong));
        let used = use_code(&state, ADA, None, &format!("/start {}", made.code.to_lowercase()), 0).await.unwrap();
        assert_eq!(used, CodeUse::Paired);
        assert_eq!(paired_chat(&state).await.unwrap(), Some(ADA));
        let again = use_code(&state, 7, None, &format!("/start {}", made.code), 0).await.unwrap();
        assert_eq!(again, CodeUse::Refused(Refusal::NoCode), "used up");
        assert_ne!(code(&state, 0).await, made.code);
    }

    #[tokio::test]
    async fn reading_the_pairing_makes_no_code() {
        let state = MemoryState::default();
        assert_eq!(pairing(&state, 0).await.unwrap(), Pairing::default());
        assert_eq!(state.get(CODE_KEY).await.unwrap(), None);
        let refused = use_code(&state, ADA, None, "/start ACDEFGHJ", 0).await.unwrap();
        assert_eq!(refused, CodeUse::Refused(Refusal::NoCode));
    }

    #[tokio::test]
    async fn a_code_is_good_for_ten_minutes_and_not_one_millisecond_more() {
        let state = MemoryState::default();
        let made = code(&state, 1_000).await;
        let deadline = 1_000 + 10 * MINUTE_MS;
        assert!(pairing(&state, deadline - 1).await.unwrap().code.is_some());
        assert_eq!(pairing(&state, deadline).await.unwrap().code, None, "not shown once it has expired");
        let late = use_code(&state, ADA, None, &format!("/start {made}"), deadline).await.unwrap();
        assert_eq!(late, CodeUse::Refused(Refusal::Expired));
        assert_eq!(paired_chat(&state).await.unwrap(), None);

        let made = code(&state, deadline).await;
        let in_time = use_code(&state, ADA, None, &format!("/start {made}"), deadline + 10 * MINUTE_MS - 1).await;
        assert_eq!(in_time.unwrap(), CodeUse::Paired);
    }

    #[tokio::test]
    async fn an_eleven_minute_old_code_leaves_the_paired_chat() {
        let state = MemoryState::default();
        let first = code(&state, 0).await;
        use_code(&state, ADA, None, &format!("/start {first}"), 0).await.unwrap();
        let second = code(&state, MINUTE_MS).await;
        let late = use_code(&state, BOB, None, &format!("/start {second}"), 12 * MINUTE_MS).await.unwrap();
        assert_eq!(late, CodeUse::Refused(Refusal::Expired));
        assert_eq!(pairing(&state, 12 * MINUTE_MS).await.unwrap(), Pairing { chat: Some(ADA), ..Pairing::default() });
    }

    #[tokio::test]
    async fn a_code_stored_before_codes_expired_is_no_code() {
        let state = MemoryState::default();
        state.set(CODE_KEY, "ACDEFGHJ").await.unwrap();
        assert_eq!(pairing(&state, 0).await.unwrap().code, None);
        let refused = use_code(&state, ADA, None, "/start ACDEFGHJ", 0).await.unwrap();
        assert_eq!(refused, CodeUse::Refused(Refusal::NoCode));
    }

    #[tokio::test]
    async fn a_new_chat_waits_for_the_persons_confirmation() {
        let state = MemoryState::default();
        let first = code(&state, 0).await;
        use_code(&state, ADA, None, &format!("/start {first}"), 0).await.unwrap();
        let second = code(&state, 0).await;
        let asked = use_code(&state, BOB, Some("@bob"), &format!("/start {second}"), MINUTE_MS).await.unwrap();
        assert_eq!(asked, CodeUse::AwaitsConfirmation { paired: ADA });
        let now = pairing(&state, MINUTE_MS).await.unwrap();
        assert_eq!(now.chat, Some(ADA), "nothing changes before the person confirms");
        assert_eq!(now.code, None, "the code is used up");
        let request = ChatRequest { chat: BOB, name: Some("@bob".into()), expires_at_ms: 11 * MINUTE_MS };
        assert_eq!(now.request, Some(request));

        assert_eq!(confirm(&state, 7, MINUTE_MS).await.unwrap(), None, "only the chat that asked");
        let replaced = confirm(&state, BOB, 2 * MINUTE_MS).await.unwrap();
        assert_eq!(replaced, Some(Replacement { previous: Some(ADA), chat: BOB }));
        assert_eq!(pairing(&state, 2 * MINUTE_MS).await.unwrap(), Pairing { chat: Some(BOB), ..Pairing::default() });
        assert_eq!(confirm(&state, BOB, 2 * MINUTE_MS).await.unwrap(), None, "settled");
    }

    #[tokio::test]
    async fn a_refused_or_lapsed_request_leaves_the_paired_chat() {
        let state = MemoryState::default();
        let first = code(&state, 0).await;
        use_code(&state, ADA, None, &format!("/start {first}"), 0).await.unwrap();
        let second = code(&state, 0).await;
        use_code(&state, BOB, None, &format!("/start {second}"), 0).await.unwrap();
        assert!(!refuse(&state, 7).await.unwrap());
        assert!(refuse(&state, BOB).await.unwrap());
        assert_eq!(confirm(&state, BOB, 0).await.unwrap(), None);
        assert_eq!(paired_chat(&state).await.unwrap(), Some(ADA));

        let third = code(&state, 0).await;
        use_code(&state, BOB, None, &format!("/start {third}"), 0).await.unwrap();
        assert_eq!(pairing(&state, 10 * MINUTE_MS).await.unwrap().request, None, "lapsed");
        assert_eq!(confirm(&state, BOB, 10 * MINUTE_MS).await.unwrap(), None);
        assert_eq!(paired_chat(&state).await.unwrap(), Some(ADA));
    }

    #[tokio::test]
    async fn asking_for_a_new_code_drops_a_waiting_request() {
        let state = MemoryState::default();
        let first = code(&state, 0).await;
        use_code(&state, ADA, None, &format!("/start {first}"), 0).await.unwrap();
        let second = code(&state, 0).await;
        use_code(&state, BOB, None, &format!("/start {second}"), 0).await.unwrap();
        code(&state, 0).await;
        assert_eq!(pairing(&state, 0).await.unwrap().request, None);
        assert_eq!(confirm(&state, BOB, 0).await.unwrap(), None);
    }

    #[tokio::test]
    async fn the_paired_chat_may_use_a_code_again() {
        let state = MemoryState::default();
        let first = code(&state, 0).await;
        use_code(&state, ADA, None, &format!("/start {first}"), 0).await.unwrap();
        let second = code(&state, 0).await;
        assert_eq!(use_code(&state, ADA, None, &format!("/start {second}"), 0).await.unwrap(), CodeUse::Paired);
        assert_eq!(pairing(&state, 0).await.unwrap(), Pairing { chat: Some(ADA), ..Pairing::default() });
    }

    #[test]
    fn only_a_start_command_carries_a_code() {
        assert_eq!(start_code("/start ABC"), Some("ABC"));
        assert_eq!(start_code("/start@beckon_bot ABC"), Some("ABC"));
        assert_eq!(start_code("/start"), None);
        assert_eq!(start_code("/start A B"), None);
        assert_eq!(start_code("/stop ABC"), None);
        assert_eq!(start_code("/started ABC"), None);
    }
}
