//! Slack and Telegram in the chaos run: fake services on loopback that `beckon serve` posts
//! every question to (its settings name them), Telegram paired with the code the server prints,
//! and the audit afterwards: however often the server was killed mid-post, what each service
//! shows is exactly what the store records — at most one message per question on each (a
//! question answered before its turn to be posted is not posted) — and every message shows how
//! its question ended.

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;

use super::audit::snapshot::{ChannelRow, Snapshot};
use crate::support::server::Server;
use beckon_testkit::fake_slack::{APP_TOKEN, BOT_TOKEN, CHANNEL, FakeSlack};
use beckon_testkit::fake_telegram::FakeTelegram;

const TELEGRAM_TOKEN: &str = "123456:AAE-chaos_token";
/// The person's Telegram chat.
const CHAT: i64 = 4242;
/// How long each post's answer takes after its message exists.
const POST_LATENCY: Duration = Duration::from_millis(25);
/// How often the audit looks again while messages settle.
const POLL: Duration = Duration::from_millis(100);

/// Both fake services.
pub struct Fakes {
    pub slack: FakeSlack,
    pub telegram: FakeTelegram,
}

impl Fakes {
    /// Starts both.
    pub async fn start() -> Fakes {
        let fakes = Fakes { slack: FakeSlack::start().await, telegram: FakeTelegram::start(TELEGRAM_TOKEN).await };
        fakes.telegram.name_user(CHAT, "ada");
        // A post's answer comes a while after its message exists, as from a distant service:
        // kills often land in between, leaving the post in doubt.
        fakes.slack.set_latency(POST_LATENCY);
        fakes.telegram.set_latency(POST_LATENCY);
        fakes
    }

    /// Writes a data folder's settings so `beckon serve` on it uses them.
    pub fn configure(&self, data_dir: &Path) {
        let settings = json!({
            "slack": {"enabled": true, "app_token": APP_TOKEN, "bot_token": BOT_TOKEN, "channel": CHANNEL,
                      "api_base_url": self.slack.api_base()},
            "telegram": {"enabled": true, "bot_token": TELEGRAM_TOKEN, "api_base_url": self.telegram.base()},
        });
        std::fs::create_dir_all(data_dir).expect("the data folder can be made");
        std::fs::write(data_dir.join("settings.json"), settings.to_string()).expect("the settings can be written");
    }

    /// Pairs Ada's chat with the code the first start printed (`--pair-telegram`), and waits
    /// for the bot's reply. The code must never be in the log.
    pub async fn pair(&self, server: &Server) {
        let began = Instant::now();
        let code = loop {
            let printed = server.printed(1);
            if let Some(code) = printed.split("send /start ").nth(1).and_then(|rest| rest.get(..8)) {
                let log = server.log_tail(1);
                assert!(!log.contains(code), "the pairing code is in the log:\n{log}");
                break code.to_owned();
            }
            assert!(began.elapsed() < Duration::from_secs(30), "no pairing code printed:\n{printed}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        self.telegram.user_sends(CHAT, &format!("/start {code}"));
        self.telegram.until("the pairing reply", |fake| fake.bot_messages(CHAT).first().cloned()).await;
    }

    /// Every message on both services: (service, question, message id, shows its outcome).
    fn messages(&self) -> Vec<(&'static str, String, String, bool)> {
        let mut found = Vec::new();
        for message in self.slack.messages() {
            // Beckon names the question in the metadata it posts with.
            let Some(id) = message.metadata.as_ref().and_then(|m| m["event_payload"]["request_id"].as_str()) else {
                continue;
            };
            let settled = message.updates > 0 && !message.blocks.to_string().contains("\"type\":\"button\"");
            found.push(("slack", id.to_owned(), message.ts.clone(), settled));
        }
        for message in self.telegram.bot_messages(CHAT) {
            // A question's message names it in the buttons it was sent with.
            let Some(markup) = &message.sent_markup else { continue };
            let Some(data) = markup["inline_keyboard"][0][0]["callback_data"].as_str() else { continue };
            let Some(id) = data.split(':').nth(1) else { continue };
            found.push(("telegram", id.to_owned(), message.id.to_string(), message.reply_markup.is_none()));
        }
        found
    }

    /// Waits (up to `patience`) until every message on both services shows how its question
    /// ended (every question is resolved by then); the messages that still do not.
    pub async fn settle(&self, patience: Duration) -> Vec<String> {
        let began = Instant::now();
        loop {
            let waiting: Vec<String> = self
                .messages()
                .into_iter()
                .filter(|(_, _, _, settled)| !settled)
                .map(|(service, id, message, _)| {
                    format!("{id}: its {service} message {message} does not show how it ended")
                })
                .collect();
            if waiting.is_empty() || began.elapsed() > patience {
                return waiting;
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// The services against the store, one to one: every message is the one the store records
    /// for its question on that service (so no question has two), every message the store
    /// records as posted exists, and no post is left in doubt. Also how many messages each
    /// service holds.
    pub fn check(&self, snapshot: &Snapshot) -> (Vec<String>, usize, usize) {
        let mut findings = Vec::new();
        let recorded: HashMap<(&str, &str), &ChannelRow> = snapshot
            .channel_messages
            .iter()
            .map(|row| ((row.channel.as_str(), row.request_id.as_str()), row))
            .collect();
        let messages = self.messages();
        let mut shown: HashMap<(&str, &str), usize> = HashMap::new();
        for (service, id, message, _) in &messages {
            *shown.entry((service, id)).or_default() += 1;
            match recorded.get(&(*service, id.as_str())) {
                Some(row) if row.message.as_deref() == Some(message.as_str()) => {}
                Some(row) => findings.push(format!(
                    "{id}: {service} shows message {message}, the store records {:?} ({})",
                    row.message, row.state
                )),
                None => findings.push(format!("{id}: {service} shows message {message}, the store records none")),
            }
        }
        for ((service, id), count) in &shown {
            if *count > 1 {
                findings.push(format!("{id}: {count} messages on {service}"));
            }
        }
        for row in &snapshot.channel_messages {
            // A settled row with an empty message is a question the channel passed over.
            let passed_over = row.message.as_deref() == Some("");
            match row.state.as_str() {
                "posted" | "settled"
                    if !passed_over && !shown.contains_key(&(row.channel.as_str(), row.request_id.as_str())) =>
                {
                    findings.push(format!(
                        "{}: the store records a {} message that is not there",
                        row.request_id, row.channel
                    ))
                }
                "posting" => findings.push(format!("{}: its {} post is still in doubt", row.request_id, row.channel)),
                _ => {}
            }
        }
        let count = |wanted: &str| messages.iter().filter(|(service, ..)| *service == wanted).count();
        (findings, count("slack"), count("telegram"))
    }
}

/// How many posts a kill left in doubt were found again after a restart, as the servers'
/// logs in `logs` say.
pub fn posts_found_again(logs: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(logs) else { return 0 };
    entries
        .filter_map(|entry| std::fs::read_to_string(entry.ok()?.path()).ok())
        .map(|log| log.matches("found the message of a post left in doubt").count())
        .sum()
}
