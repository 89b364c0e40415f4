//! Both channels on a real Beckon (a real store file, an in-app agent on the scripted provider)
//! against fake Slack and Telegram services speaking the real wire formats: a question is
//! posted to both, answered from one, the agent resumes with that answer, and both messages
//! show how it ended; an answer from the window first is told to late presses and changes
//! nothing; dropped sockets and failing long polls lose and double nothing; a question waits
//! the minutes set, by the runtime's clock, before it is posted.

use beckon_core::GivenAnswers;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use beckon_channels::slack::{Slack, SlackConfig};
use beckon_channels::telegram::{Telegram, TelegramConfig};
use beckon_channels::{Channels, Policy, new_telegram_pairing_code, telegram_pairing};
use beckon_core::AnsweredVia;
use beckon_core::conversation::{Message, SessionStatus};
use beckon_core::{RequestId, SessionId};
use beckon_runtime::settings::ChannelFile;
use beckon_runtime::{Beckon, Clock, Decision, ManualClock, RuntimeConfig, StartOptions, SystemClock};
use beckon_store::QuestionStatus;
use beckon_testkit::eventually;
use beckon_testkit::fake_slack::{APP_TOKEN, BOT_TOKEN, CHANNEL, FakeSlack, StoredMessage};
use beckon_testkit::fake_telegram::{FakeMessage, FakeTelegram};
use serde_json::json;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

const TELEGRAM_TOKEN: &str = "123456:AAE-test_token_xyz";
/// The person's Telegram chat (and user id).
const ADA: i64 = 4242;
/// Someone else who found the bot.
const MALLORY: i64 = 777;
/// The person on Slack.
const ADA_ON_SLACK: (&str, &str) = ("U0ADA", "ada");
const PATIENCE: Duration = Duration::from_secs(15);
/// Where a test's manual clock starts (Unix ms).
const START_MS: i64 = 1_795_500_000_000;

/// An agent that asks which database, then says what it was told.
fn asker(dir: &Path) {
    let agents = dir.join("agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("builder.md"),
        "---\nname: builder\nprovider: scripted\nscript: builder.json\ndescription: Builds things\n---\nBuild it.\n",
    )
    .unwrap();
    let turns = json!([
        {"text": "Asking.", "tool_calls": [{"name": "ask_user_question", "input": {"questions": [
            {"question": "Which database for <b>prod</b>?", "header": "Database", "multiSelect": false,
             "options": [{"label": "Postgres", "description": "Shared"}, {"label": "SQLite"}, {"label": "MySQL"}]}
        ]}}]},
        {"text": "outcome={{outcome}} answer={{answer:0}}"}
    ]);
    std::fs::write(agents.join("builder.json"), json!({ "turns": turns }).to_string()).unwrap();
}

/// A Beckon with the builder agent, and both fake services.
struct World {
    _dir: tempfile::TempDir,
    beckon: Beckon,
    slack: FakeSlack,
    telegram: FakeTelegram,
}

impl World {
    async fn new() -> World {
        World::on(Arc::new(SystemClock)).await
    }

    /// A world whose Beckon reads time on `clock`.
    async fn on(clock: Arc<dyn Clock>) -> World {
        let dir = tempfile::tempdir().unwrap();
        asker(dir.path());
        let options = StartOptions { clock, ..StartOptions::default() };
        let beckon = Beckon::start(RuntimeConfig::new(dir.path()), options).await.unwrap();
        let slack = FakeSlack::start().await;
        let telegram = FakeTelegram::start(TELEGRAM_TOKEN).await;
        telegram.name_user(ADA, "ada");
        World { _dir: dir, beckon, slack, telegram }
    }

    fn slack_file(&self) -> ChannelFile {
        ChannelFile {
            enabled: true,
            app_token: Some(APP_TOKEN.into()),
            bot_token: Some(BOT_TOKEN.into()),
            channel: Some(CHANNEL.into()),
            api_base_url: Some(self.slack.api_base()),
            ..ChannelFile::default()
        }
    }

    fn telegram_file(&self) -> ChannelFile {
        ChannelFile {
            enabled: true,
            bot_token: Some(TELEGRAM_TOKEN.into()),
            api_base_url: Some(self.telegram.base()),
            ..ChannelFile::default()
        }
    }

    /// Ada pairs her chat with the code the settings show.
    async fn pair(&self) {
        let code = new_telegram_pairing_code(&self.beckon).await.unwrap().code.unwrap();
        self.telegram.user_sends(ADA, &format!("/start {code}"));
        self.telegram.until("the pairing reply", |fake| fake.bot_messages(ADA).first().cloned()).await;
        assert_eq!(telegram_pairing(&self.beckon).await.unwrap().chat, Some(ADA.to_string()));
    }

    /// Both channels as the app starts them, with Ada's chat paired.
    async fn with_channels(&self) -> Channels {
        let channels = Channels::start(&self.beckon, &self.slack_file(), &self.telegram_file(), false);
        assert_eq!(channels.running(), 2);
        self.pair().await;
        channels
    }

    /// Starts the builder; the question it waits on.
    async fn ask(&self) -> (SessionId, RequestId) {
        let session = self.beckon.start_session("builder", "build the shop").await.unwrap();
        let request = eventually("the question", PATIENCE, || async {
            self.beckon.inbox().session(session).await.unwrap().pending.map(|question| question.id)
        })
        .await;
        (session, request)
    }

    /// The Slack message of `request` (by the metadata Beckon posts with it).
    async fn slack_message(&self, request: RequestId) -> StoredMessage {
        self.slack.message_for(&request.to_string()).await
    }

    /// The Telegram message of `request` (by its buttons' data).
    async fn telegram_message(&self, request: RequestId) -> FakeMessage {
        let id = request.to_string();
        self.telegram
            .until("the Telegram message", |fake| {
                fake.bot_messages(ADA).into_iter().find(|m| m.buttons().iter().any(|(_, data)| data.contains(&id)))
            })
            .await
    }

    async fn completed_with(&self, session: SessionId, words: &str) {
        eventually("the session to complete", PATIENCE, || async {
            let view = self.beckon.inbox().session(session).await.unwrap();
            (view.session.status == SessionStatus::Completed).then_some(())
        })
        .await;
        assert_eq!(last_words(&self.beckon, session).await, words);
    }
}

/// Moves `clock` on, past any retry's wait, until `done`: what waits on the runtime's clock goes
/// on at once instead of in real time.
async fn advancing_until(clock: &ManualClock, what: &str, done: impl Fn() -> bool) {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while !done() {
        assert!(tokio::time::Instant::now() < deadline, "timed out waiting for {what}");
        clock.advance(Duration::from_secs(30));
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

async fn last_words(beckon: &Beckon, session: SessionId) -> String {
    let view = beckon.inbox().session(session).await.unwrap();
    view.timeline
        .iter()
        .rev()
        .find_map(|entry| match &entry.message {
            Message::Assistant { text } => Some(text.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

/// Every answer entry in a session's timeline.
async fn answers_in(beckon: &Beckon, session: SessionId) -> usize {
    let view = beckon.inbox().session(session).await.unwrap();
    view.timeline.iter().filter(|entry| matches!(entry.message, Message::Answer { .. })).count()
}

fn slack_buttons(message: &StoredMessage) -> Vec<(String, String)> {
    message.buttons()
}

fn slack_text(message: &StoredMessage) -> String {
    message.blocks.to_string()
}

/// Slack, end to end: the agent asks, the message has the question and a button per option,
/// Ada presses one, the agent resumes with it, and the message (and Telegram's) shows the
/// outcome, who answered and through what, with no buttons left.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slack_press_answers_the_agent_and_both_messages_show_the_outcome() {
    let world = World::new().await;
    let channels = world.with_channels().await;
    let (session, request) = world.ask().await;

    let message = world.slack_message(request).await;
    assert_eq!(message.channel, CHANNEL);
    let text = slack_text(&message);
    assert!(text.contains("*builder* asks"), "{text}");
    assert!(text.contains("Which database for &lt;b&gt;prod&lt;/b&gt;?"), "agent markup shows as text: {text}");
    assert_eq!(
        slack_buttons(&message),
        [
            ("beckon.option.0".into(), "Postgres".into()),
            ("beckon.option.1".into(), "SQLite".into()),
            ("beckon.option.2".into(), "MySQL".into()),
            ("beckon.other".into(), "Other…".into()),
            ("beckon.comment".into(), "Comment…".into()),
            ("beckon.skip".into(), "Skip".into()),
        ]
    );
    let on_telegram = world.telegram_message(request).await;
    assert!(on_telegram.text.contains("Which database for <b>prod</b>?"), "{}", on_telegram.text);

    let press = world.slack.press_button(&message.ts, "beckon.option.1", ADA_ON_SLACK, json!({}));
    world.slack.send(&press);
    world.completed_with(session, "outcome=answered answer=SQLite").await;
    let question = world.beckon.inbox().question(request).await.unwrap();
    assert_eq!(question.answered_via, Some(AnsweredVia::Slack));
    assert_eq!(question.answered_by.as_deref(), Some("slack:U0ADA (ada)"));

    let updated = world
        .slack
        .wait_for("the Slack message updated", |recorded| {
            recorded.messages.iter().find(|m| m.ts == message.ts && m.updates > 0).cloned()
        })
        .await;
    let text = slack_text(&updated);
    assert!(text.contains("SQLite") && text.contains("ada") && text.contains("Slack"), "{text}");
    assert!(slack_buttons(&updated).is_empty(), "no buttons once answered");
    let edited = world
        .telegram
        .until("the Telegram message edited", |fake| {
            fake.message(ADA, on_telegram.id).filter(|m| m.reply_markup.is_none() && m.text.contains("SQLite"))
        })
        .await;
    assert!(edited.text.contains("ada"), "{}", edited.text);
    assert_eq!(world.slack.messages().len(), 1, "one message per question");
    channels.stop().await;
    world.beckon.shutdown().await;
}

/// Telegram, end to end, with "Other" by reply: a stranger's reply is ignored, Ada's answers,
/// and the agent gets her words.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_telegram_reply_answers_other_and_a_strangers_is_ignored() {
    let world = World::new().await;
    let channels = world.with_channels().await;
    let (session, request) = world.ask().await;
    let message = world.telegram_message(request).await;
    assert_eq!(message.button_texts(), ["Postgres", "SQLite", "MySQL", "Other…", "Skip"]);

    // A stranger presses and replies: nothing is answered.
    world.telegram.user_sends(MALLORY, "/start 12345678");
    world.telegram.user_replies(MALLORY, message.id, "MongoDB");
    world.telegram.until_confirmed().await;
    assert_eq!(world.beckon.inbox().question(request).await.unwrap().status, QuestionStatus::Pending);
    assert!(world.telegram.bot_messages(MALLORY).is_empty(), "strangers get no reply");

    world.telegram.press_button(ADA, message.id, "Other…");
    let prompt = world
        .telegram
        .until("the reply prompt", |fake| fake.bot_messages(ADA).into_iter().find(|m| m.force_reply))
        .await;
    world.telegram.user_replies(ADA, prompt.id, "CockroachDB");
    world.completed_with(session, "outcome=answered answer=CockroachDB").await;
    let question = world.beckon.inbox().question(request).await.unwrap();
    assert_eq!(question.answered_via, Some(AnsweredVia::Telegram));
    assert_eq!(question.answered_by.as_deref(), Some("telegram:4242 (@ada)"));

    world
        .telegram
        .until("the message edited", |fake| {
            fake.message(ADA, message.id).filter(|m| m.reply_markup.is_none() && m.text.contains("CockroachDB"))
        })
        .await;
    let slack = world.slack_message(request).await;
    world
        .slack
        .wait_for("the Slack message updated", |recorded| {
            recorded
                .messages
                .iter()
                .find(|m| m.ts == slack.ts && m.updates > 0 && slack_text(m).contains("CockroachDB"))
                .cloned()
        })
        .await;
    channels.stop().await;
    world.beckon.shutdown().await;
}

/// Answered in the window first: both messages show it, and a late press on either is told
/// "already answered" with the winning answer, and changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_from_the_window_wins_and_late_presses_are_told_so() {
    let world = World::new().await;
    let channels = world.with_channels().await;
    let (session, request) = world.ask().await;
    let slack = world.slack_message(request).await;
    let telegram = world.telegram_message(request).await;

    // The press Ada makes on the message as her screen still shows it.
    let late_press = world.slack.press_button(&slack.ts, "beckon.option.2", ADA_ON_SLACK, json!({}));
    world
        .beckon
        .resolve(request, AnsweredVia::Window, Decision::Answer(GivenAnswers::Texts(vec!["Postgres".into()])))
        .await
        .unwrap();
    world.completed_with(session, "outcome=answered answer=Postgres").await;
    let updated = world
        .slack
        .wait_for("the Slack message updated", |recorded| {
            recorded.messages.iter().find(|m| m.ts == slack.ts && m.updates > 0).cloned()
        })
        .await;
    assert!(
        slack_text(&updated).contains("Postgres") && slack_text(&updated).contains("window"),
        "{}",
        slack_text(&updated)
    );
    world
        .telegram
        .until("the Telegram message edited", |fake| {
            fake.message(ADA, telegram.id).filter(|m| m.reply_markup.is_none() && m.text.contains("Postgres"))
        })
        .await;

    // Late presses on the buttons each person still had on screen.
    world.slack.send(&late_press);
    let told = world.slack.wait_for("the Slack reply", |recorded| recorded.ephemerals.first().cloned()).await;
    assert_eq!(told.text, "already answered: Postgres");
    world.telegram.user_presses(ADA, telegram.id, &telegram.buttons()[1].1);
    let answer = world
        .telegram
        .until("the callback answer", |fake| {
            fake.callback_answers()
                .into_iter()
                .find(|a| a.text.as_deref() != Some("Answered"))
                .filter(|a| a.text.is_some())
        })
        .await;
    assert_eq!(answer.text.as_deref(), Some("already answered: Postgres"));

    let question = world.beckon.inbox().question(request).await.unwrap();
    assert_eq!(question.answered_via, Some(AnsweredVia::Window));
    assert_eq!(question.answered_by, None);
    assert_eq!(answers_in(&world.beckon, session).await, 1);
    assert_eq!(last_words(&world.beckon, session).await, "outcome=answered answer=Postgres");
    let slack_now = world.slack.messages().into_iter().find(|m| m.ts == slack.ts).unwrap();
    assert_eq!(slack_now.updates, 1, "updated once, not again by the late press");
    channels.stop().await;
    world.beckon.shutdown().await;
}

/// Slack's socket dropped and Telegram's long poll failing mid-run: both reconnect, every
/// press made meanwhile answers its question once, and a press delivered twice answers once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_socket_and_a_failing_long_poll_lose_and_double_nothing() {
    let clock = ManualClock::new(START_MS);
    let world = World::on(Arc::new(clock.clone())).await;
    let fast = Policy { retry_base: Duration::from_millis(20), ..Policy::default() };
    let stop = CancellationToken::new();
    let (_dnd, dnd) = watch::channel(false);
    let slack = Slack::new(
        SlackConfig {
            api_base: world.slack.api_base(),
            ..SlackConfig::new(APP_TOKEN, BOT_TOKEN, Some("U0ADA".into()), Some(CHANNEL.into()))
        },
        reqwest::Client::new(),
    );
    let telegram = Telegram::new(
        TelegramConfig {
            api_base: world.telegram.base(),
            poll_timeout: Duration::from_secs(1),
            retry_base: Duration::from_millis(20),
            ..TelegramConfig::new(TELEGRAM_TOKEN)
        },
        reqwest::Client::new(),
        std::sync::Arc::new(world.beckon.clone()),
    );
    let workers = [
        tokio::spawn(beckon_channels::run(world.beckon.clone(), slack, fast.clone(), dnd.clone(), stop.clone())),
        tokio::spawn(beckon_channels::run(world.beckon.clone(), telegram, fast, dnd, stop.clone())),
    ];
    world.slack.wait_connections(1).await;
    world.pair().await;
    let (first, first_request) = world.ask().await;
    let (second, second_request) = world.ask().await;
    let on_slack = world.slack_message(first_request).await;
    let on_telegram = world.telegram_message(second_request).await;

    // Slack drops the socket; Beckon reconnects and the press made then arrives, even twice.
    world.slack.drop_socket();
    world.slack.wait_connections(2).await;
    let press = world.slack.press_button(&on_slack.ts, "beckon.option.0", ADA_ON_SLACK, json!({}));
    world.slack.send(&press);
    world.slack.send(&press);
    // Telegram's long poll fails with a conflict, a rate limit and a bad gateway in a row;
    // the poller goes on through them (waiting each out on the runtime's clock) and the press
    // made then arrives.
    let calls = world.telegram.get_updates_calls();
    world.telegram.fail_next_get_updates(409, 1);
    world.telegram.fail_next_get_updates(429, 1);
    world.telegram.fail_next_get_updates(502, 1);
    advancing_until(&clock, "every failure met", || world.telegram.get_updates_failures_left() == 0).await;
    world.telegram.user_presses(ADA, on_telegram.id, &on_telegram.buttons()[2].1);
    advancing_until(&clock, "the press heard", || world.telegram.unconfirmed() == 0).await;
    world.completed_with(first, "outcome=answered answer=Postgres").await;
    world.completed_with(second, "outcome=answered answer=MySQL").await;
    assert!(world.telegram.get_updates_calls() >= calls + 4, "three failed polls and one that delivered");
    // The server loses track and sends every update again: nothing is answered twice.
    world.telegram.redeliver_all();
    world.telegram.until_confirmed().await;
    let envelope = press["envelope_id"].as_str().unwrap();
    world.slack.wait_acks(envelope, 2).await;

    for (session, request) in [(first, first_request), (second, second_request)] {
        assert_eq!(answers_in(&world.beckon, session).await, 1, "one answer for {request}");
        assert_eq!(world.beckon.inbox().question(request).await.unwrap().status, QuestionStatus::Answered);
    }
    let replies: Vec<_> = world.slack.ephemerals().into_iter().map(|e| e.text).collect();
    assert!(replies.is_empty(), "the repeated envelope was not pressed again: {replies:?}");
    assert_eq!(world.slack.messages().len(), 2, "one message per question");
    stop.cancel();
    for worker in workers {
        tokio::time::timeout(Duration::from_secs(10), worker).await.unwrap().unwrap();
    }
    world.beckon.shutdown().await;
}

/// A press is hostile until shown otherwise: one that names another question than its message
/// shows answers nothing, and the person is told.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_press_cannot_answer_a_question_its_message_does_not_show() {
    let world = World::new().await;
    let channels = world.with_channels().await;
    let (_, first) = world.ask().await;
    let (_, second) = world.ask().await;
    let on_first = world.slack_message(first).await;
    world.slack_message(second).await;

    // The first question's message, its button's value rewritten to name the second question.
    let mut forged = world.slack.press_button(&on_first.ts, "beckon.option.0", ADA_ON_SLACK, json!({}));
    let value =
        forged["payload"]["actions"][0]["value"].as_str().unwrap().replace(&first.to_string(), &second.to_string());
    forged["payload"]["actions"][0]["value"] = json!(value);
    world.slack.send(&forged);
    let told = world.slack.wait_for("the Slack reply", |recorded| recorded.ephemerals.first().cloned()).await;
    assert_eq!(told.text, "This message does not belong to that question.");
    for request in [first, second] {
        assert_eq!(world.beckon.inbox().question(request).await.unwrap().status, QuestionStatus::Pending);
    }
    channels.stop().await;
    world.beckon.shutdown().await;
}

/// Do not disturb pauses new posts (the question waits for the person's return, and is posted
/// then); it never loses one, and messages already posted still show how their questions ended.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn do_not_disturb_holds_posts_until_it_is_turned_off() {
    let world = World::new().await;
    let channels = world.with_channels().await;
    let (_, earlier) = world.ask().await;
    let on_slack = world.slack_message(earlier).await;
    let on_telegram = world.telegram_message(earlier).await;
    channels.set_do_not_disturb(true);
    let (session, request) = world.ask().await;
    // The pass that shows the earlier question's end on its messages reads the new question
    // too, and would post it first were posting allowed: once both messages are settled, the
    // channels have passed over the new question.
    world
        .beckon
        .resolve(earlier, AnsweredVia::Window, Decision::Answer(GivenAnswers::Texts(vec!["SQLite".into()])))
        .await
        .unwrap();
    world
        .slack
        .wait_for("the Slack message updated", |recorded| {
            recorded.messages.iter().find(|m| m.ts == on_slack.ts && m.updates > 0).cloned()
        })
        .await;
    world
        .telegram
        .until("the Telegram message edited", |fake| {
            fake.message(ADA, on_telegram.id).filter(|m| m.reply_markup.is_none())
        })
        .await;
    assert_eq!(world.slack.messages().len(), 1, "nothing new posted under do not disturb");
    assert_eq!(
        world.telegram.bot_messages(ADA).iter().filter(|m| m.sent_markup.is_some()).count(),
        1,
        "nothing new posted under do not disturb"
    );

    channels.set_do_not_disturb(false);
    let message = world.slack_message(request).await;
    world.telegram_message(request).await;
    world.slack.send(&world.slack.press_button(&message.ts, "beckon.option.0", ADA_ON_SLACK, json!({})));
    world.completed_with(session, "outcome=answered answer=Postgres").await;
    channels.stop().await;
    world.beckon.shutdown().await;
}

/// A channel set to post questions still unanswered after some minutes waits for them on the
/// runtime's clock: nothing is posted before a question is due, and it is posted once the clock
/// reaches that moment. A worker waiting in real time would sleep through the test: it would
/// post the second question a minute later at the earliest.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_is_posted_once_it_is_unanswered_for_the_minutes_set() {
    let clock = ManualClock::new(START_MS);
    let world = World::on(Arc::new(clock.clone())).await;
    let slack = ChannelFile { after_minutes: 5, ..world.slack_file() };
    let channels = Channels::start(&world.beckon, &slack, &ChannelFile::default(), false);
    let (first_session, first) = world.ask().await;
    clock.advance(Duration::from_secs(3 * 60));
    let (second_session, second) = world.ask().await;
    clock.advance(Duration::from_secs(2 * 60));
    let on_slack = world.slack_message(first).await;

    // The pass that shows the first question's end reads the second too, three minutes short of
    // its five, and would post it first were it due: once the message is updated, it was not.
    world
        .beckon
        .resolve(first, AnsweredVia::Window, Decision::Answer(GivenAnswers::Texts(vec!["SQLite".into()])))
        .await
        .unwrap();
    world
        .slack
        .wait_for("the Slack message updated", |recorded| {
            recorded.messages.iter().find(|m| m.ts == on_slack.ts && m.updates > 0).cloned()
        })
        .await;
    assert_eq!(world.slack.messages().len(), 1, "posted before its five minutes");
    world.completed_with(first_session, "outcome=answered answer=SQLite").await;

    clock.advance(Duration::from_secs(3 * 60));
    let message = world.slack_message(second).await;
    world.slack.send(&world.slack.press_button(&message.ts, "beckon.option.2", ADA_ON_SLACK, json!({})));
    world.completed_with(second_session, "outcome=answered answer=MySQL").await;
    channels.stop().await;
    world.beckon.shutdown().await;
}
