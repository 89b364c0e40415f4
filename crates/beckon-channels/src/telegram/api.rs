//! The Bot API over HTTPS: one typed call per method Beckon uses, and the objects it reads.
//!
//! The bot's token is part of every URL (`{api_base}/bot{token}/{method}`), so no URL is ever
//! logged or put in an error: reqwest's errors lose theirs (`without_url`) and what is left is
//! scrubbed of the token once more. Answers are read up to a bound, and any answer that is not
//! the Bot API's `{"ok": …}` envelope counts as the service being unreachable.

use std::fmt;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::keyboard::InlineKeyboard;
use crate::error::Error;

/// The service's name in errors.
pub(super) const CHANNEL: &str = "Telegram";
/// The largest answer read from the Bot API (a full `getUpdates` batch fits many times).
const ANSWER_MAX_BYTES: usize = 4 * 1024 * 1024;
/// The longest error description kept from an answer.
const DESCRIPTION_MAX_CHARS: usize = 300;
/// How long one call other than `getUpdates` may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(20);
/// How much longer than its own long-poll timeout a `getUpdates` call may take.
const POLL_GRACE: Duration = Duration::from_secs(15);
/// The longest token accepted; real ones are about 46 characters.
const TOKEN_MAX_CHARS: usize = 128;

/// How a call failed, before it becomes the crate's [`Error`].
#[derive(Debug)]
pub(super) enum ApiError {
    /// Telegram was not reached, or what came back was not a Bot API answer.
    Transport(String),
    /// Telegram answered `"ok": false`.
    Refusal {
        /// The API method.
        method: &'static str,
        /// `error_code` (the HTTP status).
        code: u16,
        /// Telegram's own words ("Bad Request: message is not modified").
        description: String,
        /// How long Telegram asks us to wait, in seconds.
        retry_after: Option<u64>,
    },
}

impl ApiError {
    /// Whether Telegram's description says `what` (case-insensitive).
    pub(super) fn says(&self, what: &str) -> bool {
        match self {
            Self::Transport(_) => false,
            Self::Refusal { description, .. } => description.to_lowercase().contains(&what.to_lowercase()),
        }
    }

    /// The HTTP status Telegram gave, when it answered.
    pub(super) fn code(&self) -> Option<u16> {
        match self {
            Self::Transport(_) => None,
            Self::Refusal { code, .. } => Some(*code),
        }
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Transport(detail) => f.write_str(detail),
            Self::Refusal { method, description, .. } => write!(f, "{method}: {description}"),
        }
    }
}

impl From<ApiError> for Error {
    fn from(err: ApiError) -> Self {
        match err {
            ApiError::Transport(detail) => Error::Unreachable { channel: CHANNEL, detail },
            ApiError::Refusal { retry_after: Some(seconds), .. } => {
                Error::RateLimited { channel: CHANNEL, retry_after_ms: seconds.saturating_mul(1000) }
            }
            ApiError::Refusal { code: 429, .. } => Error::RateLimited { channel: CHANNEL, retry_after_ms: 1000 },
            // A server error or a conflict may pass; anything else is the same next time.
            ApiError::Refusal { method, code, description, .. } if code >= 500 || code == 409 => {
                Error::Unreachable { channel: CHANNEL, detail: format!("{method}: {description}") }
            }
            ApiError::Refusal { method, description, .. } => {
                Error::Refused { channel: CHANNEL, method, detail: description }
            }
        }
    }
}

/// A Bot API update (only the kinds Beckon asks for; its `update_id` is read beforehand).
#[derive(Debug, Deserialize)]
pub(super) struct Update {
    pub message: Option<Message>,
    pub callback_query: Option<CallbackQuery>,
}

/// A message, or the "inaccessible message" a callback query may carry (date 0, no text).
#[derive(Debug, Deserialize)]
pub(super) struct Message {
    pub message_id: i64,
    pub chat: Chat,
    pub from: Option<User>,
    pub text: Option<String>,
    pub reply_to_message: Option<Box<Message>>,
    pub reply_markup: Option<InlineKeyboard>,
}

/// A chat: Beckon pairs with private ones only.
#[derive(Debug, Deserialize)]
pub(super) struct Chat {
    pub id: i64,
    #[serde(rename = "type", default)]
    pub kind: String,
}

impl Chat {
    /// A one-to-one chat between a person and the bot.
    pub fn is_private(&self) -> bool {
        self.kind == "private"
    }
}

/// A Telegram user.
#[derive(Debug, Deserialize)]
pub(super) struct User {
    pub id: i64,
    #[serde(default)]
    pub first_name: String,
    pub username: Option<String>,
}

/// A press on one of the bot's inline buttons.
#[derive(Debug, Deserialize)]
pub(super) struct CallbackQuery {
    pub id: String,
    pub from: User,
    pub message: Option<Message>,
    pub data: Option<String>,
}

/// What a message offers under it: the bot's buttons, or a reply field opened for the person.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub(super) enum ReplyMarkup<'a> {
    Buttons(&'a InlineKeyboard),
    ForceReply { force_reply: bool, input_field_placeholder: &'static str },
}

#[derive(Deserialize)]
struct Envelope {
    ok: bool,
    result: Option<Value>,
    error_code: Option<u16>,
    description: Option<String>,
    parameters: Option<ResponseParameters>,
}

#[derive(Deserialize)]
struct ResponseParameters {
    retry_after: Option<u64>,
}

/// One bot's Bot API.
pub(super) struct BotApi {
    http: reqwest::Client,
    base: String,
    token: String,
}

impl fmt::Debug for BotApi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BotApi").field("base", &self.base).field("token", &"<redacted>").finish()
    }
}

impl BotApi {
    pub fn new(http: reqwest::Client, base: &str, token: String) -> Self {
        BotApi { http, base: base.trim_end_matches('/').to_owned(), token }
    }

    /// Updates from `offset` on, waiting up to `timeout` for one; each is left as JSON so that
    /// one odd update cannot spoil its batch.
    pub async fn get_updates(&self, offset: i64, timeout: Duration) -> Result<Vec<Value>, ApiError> {
        let body = json!({
            "offset": offset,
            "timeout": timeout.as_secs(),
            "allowed_updates": ["message", "callback_query"],
        });
        self.call("getUpdates", &body, timeout + POLL_GRACE).await
    }

    /// Sends `text` as plain text (no parse mode: an agent's words are shown as written).
    pub async fn send_message(
        &self,
        chat: i64,
        text: &str,
        markup: Option<ReplyMarkup<'_>>,
        reply_to: Option<i64>,
    ) -> Result<Message, ApiError> {
        let mut body = json!({"chat_id": chat, "text": text, "link_preview_options": {"is_disabled": true}});
        if let Some(markup) = markup {
            body["reply_markup"] = json!(markup);
        }
        if let Some(message) = reply_to {
            body["reply_parameters"] = json!({"message_id": message, "allow_sending_without_reply": true});
        }
        self.call("sendMessage", &body, CALL_TIMEOUT).await
    }

    /// Replaces a message's text; with no markup given, its buttons go.
    pub async fn edit_message_text(&self, chat: i64, message: i64, text: &str) -> Result<(), ApiError> {
        let body = json!({"chat_id": chat, "message_id": message, "text": text, "link_preview_options": {"is_disabled": true}});
        self.call::<Value>("editMessageText", &body, CALL_TIMEOUT).await.map(drop)
    }

    /// Replaces a message's buttons (`None`: removes them); the message as it now is.
    pub async fn edit_reply_markup(
        &self,
        chat: i64,
        message: i64,
        keyboard: Option<&InlineKeyboard>,
    ) -> Result<Message, ApiError> {
        let mut body = json!({"chat_id": chat, "message_id": message});
        if let Some(keyboard) = keyboard {
            body["reply_markup"] = json!(keyboard);
        }
        self.call("editMessageReplyMarkup", &body, CALL_TIMEOUT).await
    }

    /// Ends a button's spinner, with a short notice or an alert when `text` is given.
    pub async fn answer_callback(&self, query: &str, text: Option<&str>, alert: bool) -> Result<(), ApiError> {
        let mut body = json!({"callback_query_id": query});
        if let Some(text) = text {
            body["text"] = json!(text);
            body["show_alert"] = json!(alert);
        }
        self.call::<Value>("answerCallbackQuery", &body, CALL_TIMEOUT).await.map(drop)
    }

    async fn call<T: DeserializeOwned>(
        &self,
        method: &'static str,
        body: &Value,
        timeout: Duration,
    ) -> Result<T, ApiError> {
        if !token_is_well_formed(&self.token) {
            // Such a token would change the URL's path; Telegram's own answer for it is 404.
            return Err(ApiError::Refusal {
                method,
                code: 404,
                description: "the bot token is not in Telegram's form (digits, a colon, then letters, digits, - and _)"
                    .into(),
                retry_after: None,
            });
        }
        let url = format!("{}/bot{}/{method}", self.base, self.token);
        let response =
            self.http.post(url).json(body).timeout(timeout).send().await.map_err(|err| self.transport(err))?;
        let status = response.status().as_u16();
        let bytes = self.read_bounded(response).await?;
        self.read_answer(method, status, &bytes)
    }

    /// Reads the Bot API's answer to `method` (`bytes`, with HTTP `status`): its result as `T`,
    /// or the refusal it says, its description scrubbed of the token and cut short.
    pub(super) fn read_answer<T: DeserializeOwned>(
        &self,
        method: &'static str,
        status: u16,
        bytes: &[u8],
    ) -> Result<T, ApiError> {
        let Ok(envelope) = serde_json::from_slice::<Envelope>(bytes) else {
            // A proxy's error page, or not Telegram at all.
            return Err(match status {
                500.. => {
                    ApiError::Refusal { method, code: status, description: format!("HTTP {status}"), retry_after: None }
                }
                _ => ApiError::Transport(format!("{method}: the answer (HTTP {status}) is not the Bot API's")),
            });
        };
        if envelope.ok {
            let result = envelope.result.unwrap_or(Value::Null);
            // serde's words quote the answer, as long as it is.
            return serde_json::from_value(result).map_err(|err| {
                ApiError::Transport(format!(
                    "{method}: an answer of an unexpected shape: {}",
                    self.kept(&err.to_string())
                ))
            });
        }
        let description = envelope.description.unwrap_or_else(|| format!("HTTP {status}"));
        Err(ApiError::Refusal {
            method,
            code: envelope.error_code.unwrap_or(status),
            description: self.kept(&description),
            retry_after: envelope.parameters.and_then(|parameters| parameters.retry_after),
        })
    }

    /// What an error keeps of Telegram's words: scrubbed of the token, then cut short (in that
    /// order, so that no part of the token is left where the cut falls).
    fn kept(&self, text: &str) -> String {
        self.scrub(text).chars().take(DESCRIPTION_MAX_CHARS).collect()
    }

    async fn read_bounded(&self, mut response: reqwest::Response) -> Result<Vec<u8>, ApiError> {
        let too_large = || ApiError::Transport(format!("an answer larger than {ANSWER_MAX_BYTES} bytes"));
        if response.content_length().is_some_and(|length| length > ANSWER_MAX_BYTES as u64) {
            return Err(too_large());
        }
        let mut bytes = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|err| self.transport(err))? {
            if bytes.len() + chunk.len() > ANSWER_MAX_BYTES {
                return Err(too_large());
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok(bytes)
    }

    /// A transport error with its causes, and without the URL (which holds the token).
    fn transport(&self, err: reqwest::Error) -> ApiError {
        ApiError::Transport(self.scrub(&beckon_runtime::http_error::describe(err)))
    }

    /// `text` with the token taken out, wherever it may have crept in.
    fn scrub(&self, text: &str) -> String {
        if self.token.is_empty() { text.to_owned() } else { text.replace(&self.token, "<token>") }
    }
}

/// Whether `token` looks like a bot token, and so cannot change the URL's path or query.
fn token_is_well_formed(token: &str) -> bool {
    !token.is_empty()
        && token.chars().count() <= TOKEN_MAX_CHARS
        && token.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '_' | '-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_that_would_change_the_url_are_refused() {
        assert!(token_is_well_formed("123456:ABC-def_ghi"));
        assert!(!token_is_well_formed(""));
        assert!(!token_is_well_formed("123/../getMe"));
        assert!(!token_is_well_formed("123?x=1"));
        assert!(!token_is_well_formed("123 456"));
    }

    #[test]
    fn what_telegram_says_is_kept_short_and_without_the_token() {
        let token = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw";
        let api = BotApi::new(reqwest::Client::new(), "https://api.telegram.org", token.into());
        let said = format!("{}{token}", "x".repeat(DESCRIPTION_MAX_CHARS - 20));
        let answer = json!({"ok": false, "error_code": 400, "description": said}).to_string();
        let Err(ApiError::Refusal { description, .. }) =
            api.read_answer::<Value>("sendMessage", 400, answer.as_bytes())
        else {
            panic!("not a refusal")
        };
        assert!(description.chars().count() <= DESCRIPTION_MAX_CHARS);
        assert!(!description.contains("123456789"), "a cut token is left: {description}");
        let odd = json!({"ok": true, "result": "y".repeat(5000)}).to_string();
        let Err(ApiError::Transport(detail)) = api.read_answer::<Vec<Value>>("getUpdates", 200, odd.as_bytes()) else {
            panic!("not a transport error")
        };
        assert!(detail.chars().count() <= DESCRIPTION_MAX_CHARS + 100, "a detail of {} characters", detail.len());
    }

    #[test]
    fn refusals_become_the_crates_errors() {
        let refusal = |code, retry_after| ApiError::Refusal {
            method: "sendMessage",
            code,
            description: "Bad Request: chat not found".into(),
            retry_after,
        };
        assert!(matches!(Error::from(refusal(400, None)), Error::Refused { method: "sendMessage", .. }));
        assert!(matches!(Error::from(refusal(429, Some(3))), Error::RateLimited { retry_after_ms: 3000, .. }));
        assert!(matches!(Error::from(refusal(502, None)), Error::Unreachable { .. }));
        assert!(refusal(400, None).says("CHAT NOT FOUND"));
    }
}
