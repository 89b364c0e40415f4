//! The Slack app as Beckon holds it: its Web API client, the person and the channel, and where
//! a question's message goes and is found again after a crash.

use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;

use serde_json::{Value, json};

use super::blocks::EVENT_TYPE;
use super::config::SlackConfig;
use super::controls::is_slack_id;
use super::web::{Token, WebApi};
use crate::channel::{MessageRef, Posting};
use crate::error::{Error, Result};

/// How far before now a mark is taken, so clock skew between Beckon and Slack cannot put a
/// post before its own mark.
const MARK_LEAD_MS: i64 = 5_000;
/// Messages per page of history.
const HISTORY_PAGE: &str = "100";
/// Most pages of history read when looking for a post.
const HISTORY_MAX_PAGES: usize = 10;

/// Where a question's message goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Place {
    /// The person's direct messages with the app (posted to their member id).
    Person(String),
    /// A channel, for questions that allow nothing.
    Channel(String),
}

/// Slack as a channel: posts to the person's direct messages or a channel, hears presses over
/// Socket Mode.
pub struct Slack {
    pub(super) web: WebApi,
    pub(super) person: Option<String>,
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
    pub(super) fn place(&self, posting: &Posting) -> Option<Place> {
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

    /// The message of the request `request_id` in `place`'s history after `mark`, reading at
    /// most so many pages; `None` when it is not there.
    pub(super) async fn find_in_history(
        &self,
        place: &Place,
        request_id: &str,
        mark: &str,
    ) -> Result<Option<MessageRef>> {
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
pub(super) fn nowhere() -> Error {
    let detail = "only the person may answer this question and no Slack member is set as the person".into();
    Error::Refused { channel: "Slack", method: "chat.postMessage", detail }
}

/// A reply that said `ok` but lacked what the method promises.
pub(super) fn unreadable(method: &str) -> Error {
    Error::Unreachable { channel: "Slack", detail: format!("{method} gave a reply Beckon cannot read") }
}

/// `now_ms`, a few seconds earlier, as a Slack `ts` ("1700000000.000000").
pub(super) fn mark_ts(now_ms: i64) -> String {
    let ms = now_ms.saturating_sub(MARK_LEAD_MS).max(0);
    format!("{}.{:06}", ms / 1000, (ms % 1000) * 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mark_is_a_slack_ts_a_little_before_now() {
        assert_eq!(mark_ts(1_700_000_012_345), "1700000007.345000");
        assert_eq!(mark_ts(1_000), "0.000000");
    }
}
