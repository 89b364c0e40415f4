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

mod app;
mod blocks;
mod config;
mod controls;
mod direct;
pub mod fuzzing;
mod interaction;
mod modal;
mod reply;
mod socket;
mod text;
mod web;

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use self::app::{Place, mark_ts, nowhere, unreadable};
use self::controls::is_slack_id;
use self::text::{SECTION_MAX_CHARS, escaped};
use self::web::Token;
use crate::channel::{Channel, ChannelKind, Heard, MessageRef, Person, Posting, Response, Settled};
use crate::error::{Error, Result};

pub use self::app::Slack;
pub use self::config::SlackConfig;
pub use self::reply::Reply;

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
