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
mod direct;
pub mod fuzzing;
mod interaction;
mod modal;
mod socket;
mod text;
mod web;

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use self::controls::is_slack_id;
use self::text::{SECTION_MAX_CHARS, escaped};
use self::web::{Token, WebApi};
use crate::channel::{Channel, ChannelKind, Heard, MessageRef, Person, Posting, Response, Settled};
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
    /// The person's own member id (`U…`): questions only they may answer go to their direct
    /// messages with the app, and only their presses answer those. None: such questions are
    /// not posted to Slack.
    pub person: Option<String>,
    /// The channel id (`C…`) for questions that allow nothing; none: those go to the person.
    pub channel: Option<String>,
    /// The Web API's base URL, normally [`SlackConfig::DEFAULT_API_BASE`].
    pub api_base: String,
}

impl SlackConfig {
    /// Slack's Web API.
    pub const DEFAULT_API_BASE: &'static str = "https://slack.com/api";

    /// A configuration for Slack's own API.
    pub fn new(
        app_token: impl Into<String>,
        bot_token: impl Into<String>,
        person: Option<String>,
        channel: Option<String>,
    ) -> Self {
        SlackConfig {
            app_token: app_token.into(),
            bot_token: bot_token.into(),
            person,
            channel,
            api_base: Self::DEFAULT_API_BASE.to_owned(),
        }
    }
}

impl fmt::Debug for SlackConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SlackConfig")
            .field("app_token", &"[redacted]")
            .field("bot_token", &"[redacted]")
            .field("person", &self.person)
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

/// Where a question's message goes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Place {
    /// The person's direct messages with the app (posted to their member id).
    Person(String),
    /// A channel, for questions that allow nothing.
    Channel(String),
}

/// Slack as a channel: posts to the person's direct messages or a channel, hears presses over
/// Socket Mode.
pub struct Slack {
    web: WebApi,
    person: Option<String>,
    channel: Option<String>,
    /// Direct-message conversation ids by member id, once looked up.
    direct: Mutex<HashMap<String, String>>,
}

impl fmt::Debug for Slack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Slack")
            .field("person", &self.person)
            .field("channel", &self.channel)
            .field("web", &self.web)
            .finish_non_exhaustive()
    }
}

impl Slack {
    /// Slack for `config`, calling through `http`.
    pub fn new(config: SlackConfig, http: reqwest::Client) -> Slack {
        let SlackConfig { app_token, bot_token, person, channel, api_base } = config;
        let web = WebApi::new(http, &api_base, bot_token, app_token);
        Slack { web, person, channel, direct: Mutex::default() }
    }

    /// Where `posting` goes: the direct messages of the paired person it is for; else only the
    /// person's direct messages for a question only they may answer; the channel, else the
    /// person, for any other. None: nowhere on Slack.
    fn place(&self, posting: &Posting) -> Option<Place> {
        if let Some(to) = &posting.to {
            return Some(Place::Person(to.clone()));
        }
        let person = self.person.clone().map(Place::Person);
        if posting.request.person_only() {
            return person;
        }
        self.channel.clone().map(Place::Channel).or(person)
    }

    /// The conversation a place's history is read from: the channel, or the app's direct
    /// messages with the person (`conversations.open`, looked up once).
    async fn conversation(&self, place: &Place) -> Result<String> {
        let person = match place {
            Place::Channel(channel) => return Ok(channel.clone()),
            Place::Person(person) => person,
        };
        if let Some(known) = self.direct.lock().ok().and_then(|known| known.get(person).cloned()) {
            return Ok(known);
        }
        let reply = self.web.post("conversations.open", Token::Bot, &json!({"users": person})).await?;
        let id = reply.pointer("/channel/id").and_then(Value::as_str).filter(|id| is_slack_id(id));
        let Some(id) = id else { return Err(unreadable("conversations.open")) };
        if let Ok(mut known) = self.direct.lock() {
            known.insert(person.clone(), id.to_owned());
        }
        Ok(id.to_owned())
    }

    async fn find_in_history(&self, place: &Place, request_id: &str, mark: &str) -> Result<Option<MessageRef>> {
        let conversation = self.conversation(place).await?;
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

/// A post of a question this Slack does not show (the worker never asks for one).
fn nowhere() -> Error {
    let detail = "only the person may answer this question and no Slack member is set as the person".into();
    Error::Refused { channel: "Slack", method: "chat.postMessage", detail }
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

    async fn mark(&self, _posting: &Posting, now_ms: i64) -> Result<String> {
        Ok(mark_ts(now_ms))
    }

    fn shows(&self, posting: &Posting) -> bool {
        self.place(posting).is_some()
    }

    fn is_the_person(&self, person: &Person) -> bool {
        self.person.as_deref() == Some(person.id.as_str())
    }

    fn shows_whole(&self, posting: &Posting) -> bool {
        blocks::shows_whole(posting)
    }

    async fn post(&self, posting: &Posting) -> Result<MessageRef> {
        let Some(place) = self.place(posting) else { return Err(nowhere()) };
        let (Place::Person(to) | Place::Channel(to)) = &place;
        let body = json!({
            "channel": to,
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
        let Some(place) = self.place(posting) else { return Ok(None) };
        self.find_in_history(&place, &posting.request_id.to_string(), mark).await
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
            Response::Refused(why) | Response::Told(why) => why.clone(),
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

    async fn listen(self: Arc<Self>, heard: mpsc::Sender<Heard<Reply>>, stop: CancellationToken) {
        socket::listen(self, heard, stop).await;
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
        let config = SlackConfig::new("xapp-secret", "xoxb-secret", Some("U1".into()), Some("C1".into()));
        let slack = Slack::new(config.clone(), reqwest::Client::new());
        for text in [format!("{config:?}"), format!("{slack:?}")] {
            assert!(!text.contains("secret"), "{text}");
        }
        let reply = Reply::ResponseUrl("https://hooks.slack.com/actions/secret".into());
        assert!(!format!("{reply:?}").contains("secret"));
    }
}
