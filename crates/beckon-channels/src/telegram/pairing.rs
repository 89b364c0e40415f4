//! Pairing: which Telegram chat may answer.
//!
//! Anyone can find a bot and write to it, so a bot answers one chat only: the private chat that
//! sent `/start <code>` with the one-time code Beckon shows its own user. The code is made on
//! demand from an alphabet without look-alike characters, used up by the pairing, and a new one
//! re-pairs (a new phone). A wrong code gets no reply, so the bot tells a stranger nothing.

use rand::Rng;

use crate::error::Result;
use crate::state::ChannelState;

/// State key: the paired chat's id.
pub(super) const CHAT_KEY: &str = "telegram.chat";
/// State key: the pairing code waiting to be used ("" once used).
pub(super) const CODE_KEY: &str = "telegram.pairing_code";

/// Held while a code is read and made or used, so that two callers at once (the settings
/// screen and the start-up announcement) never make two codes, one of them lost.
static CODES: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Letters and digits no one confuses when copying (no 0/O, 1/I/L, 5/S, 2/Z, 8/B).
const CODE_ALPHABET: &[u8] = b"ACDEFGHJKMNPQRTUVWXY34679";
/// Characters in a code: 25^8 ≈ 1.5·10^11 codes.
const CODE_CHARS: usize = 8;

/// The code to send the bot as `/start <code>` to pair a chat: the waiting one, or a new one.
pub async fn pairing_code<S: ChannelState>(state: &S) -> Result<String> {
    let _one_at_a_time = CODES.lock().await;
    if let Some(code) = state.get(CODE_KEY).await?.filter(|code| !code.is_empty()) {
        return Ok(code);
    }
    let code = new_code();
    state.set(CODE_KEY, &code).await?;
    Ok(code)
}

/// A fresh random code (the generator is not held across an await: the future stays `Send`).
fn new_code() -> String {
    let mut rng = rand::rng();
    (0..CODE_CHARS).map(|_| char::from(CODE_ALPHABET[rng.random_range(0..CODE_ALPHABET.len())])).collect()
}

/// The chat that answers questions, once one is paired.
pub async fn paired_chat<S: ChannelState>(state: &S) -> Result<Option<i64>> {
    Ok(state.get(CHAT_KEY).await?.and_then(|chat| chat.parse().ok()))
}

/// Pairs `chat` when `text` is `/start <code>` with the waiting code; true when it did.
pub(super) async fn pair_if_code<S: ChannelState>(state: &S, chat: i64, text: &str) -> Result<bool> {
    let Some(given) = start_code(text) else { return Ok(false) };
    let _one_at_a_time = CODES.lock().await;
    let Some(waiting) = state.get(CODE_KEY).await?.filter(|code| !code.is_empty()) else { return Ok(false) };
    if !given.eq_ignore_ascii_case(&waiting) {
        return Ok(false);
    }
    state.set(CHAT_KEY, &chat.to_string()).await?;
    state.set(CODE_KEY, "").await?;
    Ok(true)
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

    #[tokio::test]
    async fn a_code_pairs_once() {
        let state = MemoryState::default();
        let code = pairing_code(&state).await.unwrap();
        assert_eq!(code.len(), CODE_CHARS);
        assert_eq!(pairing_code(&state).await.unwrap(), code, "the waiting code is kept");
        assert!(!pair_if_code(&state, 7, "/start WRONGONE").await.unwrap());
        assert!(pair_if_code(&state, 42, &format!("/start {}", code.to_lowercase())).await.unwrap());
        assert_eq!(paired_chat(&state).await.unwrap(), Some(42));
        assert!(!pair_if_code(&state, 7, &format!("/start {code}")).await.unwrap(), "used up");
        assert_ne!(pairing_code(&state).await.unwrap(), code);
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
