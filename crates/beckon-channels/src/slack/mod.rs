//! Slack: Socket Mode in, the Web API out.
//!
//! A question is posted with `chat.postMessage` as Block Kit (see `blocks`), carrying message
//! metadata that names its request so a post a crash left unrecorded is found again in the
//! channel's history. Presses arrive over Socket Mode (`socket`) and are read in
//! `interaction`; buttons that need more than a click open a form (`modal`). An ended
//! question's message is replaced with how it ended, its controls removed.
//!
//! The two tokens are secrets: they travel only in Authorization headers and appear in no log,
//! error or `Debug` output.

mod blocks;
mod controls;
mod interaction;
mod modal;
mod socket;
mod text;
mod web;

use std::fmt;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use self::controls::is_slack_id;
use self::text::{SECTION_MAX_CHARS, escaped};
use self::web::{Token, WebApi};
use crate::channel::{Channel, ChannelKind, MessageRef, Posting, Press, Response, Settled};
use crate::error::{Error, Result};

/// The message metadata event type that marks Beckon's question messages.
const EVENT_TYPE: &str = "beckon_question";
/// How far before now a mark is taken, so clock skew between Beckon and Slack cannot put a
/// post before its own mark.
const MARK_LEAD_MS: i64 = 5_000;
/// Messages per page of history.
const HISTORY_PAGE: &str = "100";
/// Most pages of history read when looking for a post.
const HISTORY_MAX_PAGES: usize = 10;

/// Where and as whom Beckon talks to Slack.
#[derive(Clone)]
pub struct SlackConfig {
    /// The app-level token (`xapp-…`, scope `connections:write`), for Socket Mode.
    pub app_token: String,
    /// The bot token (`xoxb-…`), for the Web API.
    pub bot_token: String,
    /// The channel id (`C…`), or a person's user id (`U…`) for the app's direct messages.
    pub channel: String,
    /// The Web API's base URL, normally [`SlackConfig::DEFAULT_API_BASE`].
    pub api_base: String,
}

impl SlackConfig {
    /// Slack's Web API.
    pub const DEFAULT_API_BASE: &'static str = "https://slack.com/api";

    /// A configuration for Slack's own API.
    pub fn new(app_token: impl Into<String>, bot_token: impl Into<String>, channel: impl Into<String>) -> Self {
        SlackConfig {
            app_token: app_token.into(),
            bot_token: bot_token.into(),
            channel: channel.into(),
            api_base: Self::DEFAULT_API_BASE.to_owned(),
        }
    }
}

impl fmt::Debug for SlackConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SlackConfig")
            .field("app_token", &"[redacted]")
            .field("bot_token", &"[redacted]")
            .field("channel", &self.channel)
            .field("api_base", &self.api_base)
            .finish()
    }
}

/// How Slack tells a person what became of their press: an ephemeral message only they see.
pub enum Reply {
    /// A button on the message: the press's `response_url`.
    ResponseUrl(String),
    /// A submitted form (which has no response URL): `chat.postEphemeral` to `user` in
    /// `channel`.
    Ephemeral {
        /// Where the question's message is.
        channel: String,
        /// Who submitted.
        user: String,
    },
}

impl fmt::Debug for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // A response URL lets anyone holding it post to the channel for a while.
            Self::ResponseUrl(_) => f.write_str("ResponseUrl([redacted])"),
            Self::Ephemeral { channel, user } => {
                f.debug_struct("Ephemeral").field("channel", channel).field("user", user).finish()
            }
        }
    }
}

/// Slack as a channel: posts to one conversation, hears presses over Socket Mode.
pub struct Slack {
    web: WebApi,
    channel: String,
    /// The direct-message conversation id, once looked up, when `channel` is a user id.
    conversation: Mutex<Option<String>>,
}

impl fmt::Debug for Slack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Slack").field("channel", &self.channel).field("web", &self.web).finish_non_exhaustive()
    }
}

impl Slack {
    /// Slack for `config`, calling through `http`.
    pub fn new(config: SlackConfig, http: reqwest::Client) -> Slack {
        let SlackConfig { app_token, bot_token, channel, api_base } = config;
        Slack { web: WebApi::new(http, &api_base, bot_token, app_token), channel, conversation: Mutex::new(None) }
    }

    /// The conversation history is read from: the configured channel, or the app's direct
    /// messages with the configured person (`conversations.open`, looked up once).
    async fn conversation(&self) -> Result<String> {
        if !(self.channel.starts_with('U') || self.channel.starts_with('W')) {
            return Ok(self.channel.clone());
        }
        if let Some(known) = self.known_conversation() {
            return Ok(known);
        }
        let reply = self.web.post("conversations.open", Token::Bot, &json!({"users": self.channel})).await?;
        let id = reply.pointer("/channel/id").and_then(Value::as_str).filter(|id| is_slack_id(id));
        let Some(id) = id else { return Err(unreadable("conversations.open")) };
        if let Ok(mut known) = self.conversation.lock() {
            *known = Some(id.to_owned());
        }
        Ok(id.to_owned())
    }

    fn known_conversation(&self) -> Option<String> {
        self.conversation.lock().ok().and_then(|known| known.clone())
    }

    async fn find_in_history(&self, request_id: &str, mark: &str) -> Result<Option<MessageRef>> {
        let conversation = self.conversation().await?;
        let mut cursor = String::new();
        for _ in 0..HISTORY_MAX_PAGES {
            let mut query = vec![
                ("channel", conversation.as_str()),
                ("oldest", mark),
                ("include_all_metadata", "true"),
                ("limit", HISTORY_PAGE),
            ];
            if !cursor.is_empty() {
                query.push(("cursor", cursor.as_str()));
            }
            let reply = self.web.get("conversations.history", Token::Bot, &query).await?;
            let messages = reply.get("messages").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
            for message in messages {
                let is_ours = message.pointer("/metadata/event_type").and_then(Value::as_str) == Some(EVENT_TYPE)
                    && message.pointer("/metadata/event_payload/request_id").and_then(Value::as_str)
                        == Some(request_id);
                let ts = message.get("ts").and_then(Value::as_str).filter(|ts| is_slack_id(ts));
                if let (true, Some(ts)) = (is_ours, ts) {
                    return Ok(Some(MessageRef { conversation, message: ts.to_owned() }));
                }
            }
            let next = reply.pointer("/response_metadata/next_cursor").and_then(Value::as_str).unwrap_or_default();
            let more = reply.get("has_more").and_then(Value::as_bool).unwrap_or(false);
            if !more || next.is_empty() || next.len() > 1024 {
                return Ok(None);
            }
            cursor = next.to_owned();
        }
        tracing::warn!(
            channel = "slack",
            "history after the mark is longer than Beckon reads; the post is taken as not made"
        );
        Ok(None)
    }
}

/// A reply that said `ok` but lacked what the method promises.
fn unreadable(method: &str) -> Error {
    Error::Unreachable { channel: "Slack", detail: format!("{method} gave a reply Beckon cannot read") }
}

/// `now_ms`, a few seconds earlier, as a Slack `ts` ("1700000000.000000").
fn mark_ts(now_ms: i64) -> String {
    let ms = now_ms.saturating_sub(MARK_LEAD_MS).max(0);
    format!("{}.{:06}", ms / 1000, (ms % 1000) * 1000)
}

impl Channel for Slack {
    type Reply = Reply;

    fn kind(&self) -> ChannelKind {
        ChannelKind::Slack
    }

    async fn mark(&self, now_ms: i64) -> Result<String> {
        Ok(mark_ts(now_ms))
    }

    async fn post(&self, posting: &Posting) -> Result<MessageRef> {
        let body = json!({
            "channel": self.channel,
            "text": blocks::fallback(posting),
            "blocks": blocks::question(posting),
            "metadata": blocks::metadata(posting.request_id),
            "unfurl_links": false,
            "unfurl_media": false,
        });
        let reply = self.web.post("chat.postMessage", Token::Bot, &body).await?;
        let field = |name: &str| reply.get(name).and_then(Value::as_str).filter(|value| is_slack_id(value));
        let (Some(channel), Some(ts)) = (field("channel"), field("ts")) else {
            return Err(unreadable("chat.postMessage"));
        };
        Ok(MessageRef { conversation: channel.to_owned(), message: ts.to_owned() })
    }

    async fn find_posted(&self, posting: &Posting, mark: &str) -> Result<Option<MessageRef>> {
        if !is_slack_id(mark) {
            let detail = "the mark is not a Slack ts".into();
            return Err(Error::Refused { channel: "Slack", method: "conversations.history", detail });
        }
        self.find_in_history(&posting.request_id.to_string(), mark).await
    }

    async fn settle(&self, message: &MessageRef, posting: &Posting, settled: &Settled) -> Result<()> {
        let body = json!({
            "channel": message.conversation,
            "ts": message.message,
            "text": blocks::settled_fallback(posting, settled),
            "blocks": blocks::settled(posting, settled),
        });
        self.web.post("chat.update", Token::Bot, &body).await.map(drop)
    }

    async fn respond(&self, reply: Reply, response: &Response) -> Result<()> {
        let text = match response {
            // The message itself now shows the answer.
            Response::Accepted => return Ok(()),
            Response::AlreadyAnswered(winner) => format!("already answered: {winner}"),
            Response::Refused(why) => why.clone(),
        };
        let text = escaped(&text, SECTION_MAX_CHARS);
        match reply {
            Reply::ResponseUrl(url) => {
                let body = json!({"response_type": "ephemeral", "replace_original": false, "text": text});
                self.web.post_response_url(&url, &body).await
            }
            Reply::Ephemeral { channel, user } => {
                let body = json!({"channel": channel, "user": user, "text": text});
                self.web.post("chat.postEphemeral", Token::Bot, &body).await.map(drop)
            }
        }
    }

    async fn listen(self: Arc<Self>, presses: mpsc::Sender<Press<Reply>>, stop: CancellationToken) {
        socket::listen(self, presses, stop).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mark_is_a_slack_ts_a_little_before_now() {
        assert_eq!(mark_ts(1_700_000_012_345), "1700000007.345000");
        assert_eq!(mark_ts(1_000), "0.000000");
    }

    #[test]
    fn debug_output_names_no_token() {
        let config = SlackConfig::new("xapp-secret", "xoxb-secret", "C1");
        let slack = Slack::new(config.clone(), reqwest::Client::new());
        for text in [format!("{config:?}"), format!("{slack:?}")] {
            assert!(!text.contains("secret"), "{text}");
        }
        let reply = Reply::ResponseUrl("https://hooks.slack.com/actions/secret".into());
        assert!(!format!("{reply:?}").contains("secret"));
    }
}
