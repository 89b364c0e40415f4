//! The Telegram channel against a fake Bot API: pairing, posting, presses, written answers,
//! forms, settling, the long-poll loop through failures and restarts, and finding a post a
//! crash left in doubt.
//!
//! No test sleeps to synchronise: each waits (bounded) for what the fake or the channel shows,
//! and "nothing happened" is checked once every update was confirmed, which the channel does
//! only after handling a batch.

use std::sync::Arc;
use std::time::Duration;

use beckon_channels::telegram::{Reply, Telegram, TelegramConfig, new_pairing_code, paired_chat};
use beckon_channels::{
    Action, Channel, ChannelState, Error, Heard, ItemAnswer, MemoryState, MessageRef, Person, Posting, Press, Response,
    Settled,
};
use beckon_core::{AnsweredVia, QuestionRequest, RequestId};
use beckon_store::QuestionStatus;
use beckon_testkit::fake_telegram::FakeTelegram;
use serde_json::json;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

const TOKEN: &str = "123456:AAE-test_token_xyz";
/// The person's private chat (and user id).
const ADA: i64 = 4242;
/// Someone else who found the bot.
const MALLORY: i64 = 777;
const WAIT: Duration = Duration::from_secs(10);

fn config(base: &str) -> TelegramConfig {
    TelegramConfig {
        api_base: base.to_owned(),
        poll_timeout: Duration::from_secs(1),
        retry_base: Duration::from_millis(10),
        ..TelegramConfig::new(TOKEN)
    }
}

/// A channel listening to a fake Telegram.
struct Bot {
    fake: FakeTelegram,
    state: Arc<MemoryState>,
    telegram: Arc<Telegram<MemoryState>>,
    presses: mpsc::Receiver<Heard<Reply>>,
    stop: CancellationToken,
    listener: JoinHandle<()>,
}

impl Bot {
    async fn start() -> Bot {
        let fake = FakeTelegram::start(TOKEN).await;
        fake.name_user(ADA, "ada");
        Bot::listen(fake, Arc::new(MemoryState::default()))
    }

    fn listen(fake: FakeTelegram, state: Arc<MemoryState>) -> Bot {
        let telegram = Arc::new(Telegram::new(config(&fake.base()), reqwest::Client::new(), state.clone()));
        let (sender, presses) = mpsc::channel(16);
        let stop = CancellationToken::new();
        let listener = tokio::spawn(telegram.clone().listen(sender, stop.clone()));
        Bot { fake, state, telegram, presses, stop, listener }
    }

    /// A bot Ada has paired with: her `/start` is message 1, the bot's reply message 2.
    async fn paired() -> Bot {
        let bot = Bot::start().await;
        let code = new_pairing_code(&*bot.state, bot.state.now_ms()).await.unwrap().code;
        bot.fake.user_sends(ADA, &format!("/start {code}"));
        bot.fake.until("the pairing reply", |fake| fake.bot_messages(ADA).first().cloned()).await;
        bot.fake.until_confirmed().await;
        bot
    }

    async fn next_press(&mut self) -> Press<Reply> {
        let heard = tokio::time::timeout(WAIT, self.presses.recv())
            .await
            .expect("timed out waiting for a press")
            .expect("closed");
        let Heard::Press(press) = heard else { panic!("not a press: {heard:?}") };
        press
    }

    /// The next press while the poller waits out failed calls: it waits on the state's clock,
    /// so the clock is moved past any wait (the longest is 30 s) until the press comes.
    async fn next_press_through_failures(&mut self) -> Press<Reply> {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            self.state.advance(Duration::from_secs(30));
            if let Ok(heard) = tokio::time::timeout(Duration::from_millis(20), self.presses.recv()).await {
                let Some(Heard::Press(press)) = heard else { panic!("not a press: {heard:?}") };
                return press;
            }
            assert!(tokio::time::Instant::now() < deadline, "timed out waiting for a press");
        }
    }

    /// The next thing heard, which must be a pairing code: (who sent it, the code).
    async fn next_code(&mut self) -> (String, String) {
        let heard = tokio::time::timeout(WAIT, self.presses.recv()).await.expect("timed out").expect("closed");
        let Heard::PairingCode { person, code, reply } = heard else { panic!("not a code: {heard:?}") };
        assert_eq!(reply, Reply::Pairing { chat: person.id.parse().unwrap() });
        (person.id, code)
    }

    /// Checks that no press is waiting once every update so far was handled.
    async fn no_press(&mut self) {
        self.fake.until_confirmed().await;
        if let Ok(press) = self.presses.try_recv() {
            panic!("something unexpected was heard: {press:?}");
        }
    }

    /// Posts `posting`; its message id.
    async fn post(&self, posting: &Posting) -> i64 {
        let message = self.telegram.post(posting).await.unwrap();
        assert_eq!(message.conversation, ADA.to_string());
        message.message.parse().unwrap()
    }

    async fn stop(self) -> (FakeTelegram, Arc<MemoryState>) {
        self.stop.cancel();
        tokio::time::timeout(WAIT, self.listener).await.expect("the listener did not stop").unwrap();
        (self.fake, self.state)
    }
}

fn posting(request: serde_json::Value) -> Posting {
    Posting {
        request_id: RequestId::from_uuid(Uuid::from_u128(rand::random())),
        asker: "research › summariser".into(),
        request: QuestionRequest::parse(&request).unwrap(),
        created_at_ms: 0,
        to: None,
    }
}

fn database() -> Posting {
    posting(json!({"questions": [{
        "question": "Which <b>database</b> for *prod*?", "header": "DB",
        "options": [{"label": "Postgres", "description": "<i>the safe one</i>"}, {"label": "SQLite"}]
    }]}))
}

fn form() -> Posting {
    posting(json!({"questions": [
        {"question": "Which areas?", "header": "Areas", "multiSelect": true, "options": [{"label": "Auth"}, {"label": "Billing"}, {"label": "Search"}]},
        {"question": "Which database?", "header": "DB", "options": [{"label": "Postgres"}, {"label": "SQLite"}]}
    ]}))
}

fn written() -> Posting {
    posting(json!({"questions": [{"question": "How many replicas?", "schema": {"type": "integer"}}]}))
}

fn at(message: i64) -> MessageRef {
    MessageRef { conversation: ADA.to_string(), message: message.to_string() }
}

fn chose(options: &[usize]) -> ItemAnswer {
    ItemAnswer { options: options.to_vec(), ..ItemAnswer::default() }
}

fn wrote(text: &str) -> ItemAnswer {
    ItemAnswer { other: Some(text.into()), ..ItemAnswer::default() }
}

// Pairing

#[tokio::test]
async fn only_the_chat_with_the_code_is_paired_and_the_code_is_used_up() {
    let mut bot = Bot::start().await;
    let code = new_pairing_code(&*bot.state, bot.state.now_ms()).await.unwrap().code;
    bot.fake.user_sends(MALLORY, "/start WRONGCODE");
    bot.fake.user_sends(MALLORY, "hello bot");
    bot.fake.user_sends(ADA, "/start");
    // Not the person's code: handed on as perhaps a code a team inbox's page gave someone.
    assert_eq!(bot.next_code().await, ("777".to_owned(), "WRONGCODE".to_owned()));
    bot.no_press().await;
    assert!(bot.fake.bot_messages(MALLORY).is_empty() && bot.fake.bot_messages(ADA).is_empty());
    assert_eq!(paired_chat(&*bot.state).await.unwrap(), None);

    bot.fake.user_sends(ADA, &format!("/start {code}"));
    let reply = bot.fake.until("the pairing reply", |fake| fake.bot_messages(ADA).first().cloned()).await;
    assert!(reply.text.starts_with("Paired with Beckon"), "{}", reply.text);
    assert_eq!(paired_chat(&*bot.state).await.unwrap(), Some(ADA));

    bot.fake.user_sends(MALLORY, &format!("/start {code}"));
    assert_eq!(bot.next_code().await, ("777".to_owned(), code));
    bot.no_press().await;
    assert!(bot.fake.bot_messages(MALLORY).is_empty(), "a used code pairs no one and gets no reply");
    assert_eq!(paired_chat(&*bot.state).await.unwrap(), Some(ADA));
}

#[tokio::test]
async fn nothing_is_posted_before_a_chat_is_paired() {
    let bot = Bot::start().await;
    let err = bot.telegram.post(&database()).await.unwrap_err();
    assert!(matches!(&err, Error::Refused { .. }), "{err}");
    assert!(err.to_string().contains("no chat is paired yet: send /start <code> to the bot"), "{err}");
}

// Posting and pressing

#[tokio::test]
async fn a_question_is_posted_as_written_with_a_button_per_option() {
    let bot = Bot::paired().await;
    let posting = database();
    let id = bot.post(&posting).await;
    let message = bot.fake.message(ADA, id).unwrap();
    assert!(message.from_bot);
    assert_eq!(
        message.text,
        "research › summariser asks\n\nDB\nWhich <b>database</b> for *prod*?\n\n• Postgres — <i>the safe one</i>\n• SQLite\n\nChoose an answer below."
    );
    assert_eq!(message.button_texts(), ["Postgres", "SQLite", "Other…", "Skip"]);
    let request = posting.request_id;
    let data: Vec<String> = message.buttons().into_iter().map(|(_, data)| data).collect();
    assert_eq!(
        data,
        [format!("a:{request}:0"), format!("a:{request}:1"), format!("o:{request}"), format!("d:{request}")]
    );
    assert!(data.iter().all(|data| data.len() <= 64));
}

#[tokio::test]
async fn a_press_becomes_one_press_and_its_answer_is_shown() {
    let mut bot = Bot::paired().await;
    let posting = database();
    let id = bot.post(&posting).await;

    bot.fake.press_button(ADA, id, "SQLite");
    let press = bot.next_press().await;
    assert_eq!(press.request_id, posting.request_id);
    assert_eq!(press.message, at(id));
    assert_eq!(press.person, Person { id: ADA.to_string(), name: Some("@ada".into()) });
    assert_eq!(press.action, Action::Answer(vec![chose(&[1])]));
    bot.telegram.respond(press.reply, &Response::Accepted).await.unwrap();

    bot.fake.press_button(ADA, id, "Postgres");
    let press = bot.next_press().await;
    bot.telegram.respond(press.reply, &Response::AlreadyAnswered("SQLite".into())).await.unwrap();

    bot.fake.press_button(ADA, id, "Skip");
    let press = bot.next_press().await;
    assert_eq!(press.action, Action::Decline);
    bot.telegram.respond(press.reply, &Response::Refused("Not answered: too late".into())).await.unwrap();

    let answers: Vec<(Option<String>, bool)> =
        bot.fake.callback_answers().into_iter().map(|answer| (answer.text, answer.show_alert)).collect();
    assert_eq!(
        answers,
        [
            (Some("Answered".into()), false),
            (Some("already answered: SQLite".into()), false),
            (Some("Not answered: too late".into()), true)
        ]
    );
    bot.no_press().await;
}

#[tokio::test]
async fn an_update_sent_again_yields_its_press_once() {
    let mut bot = Bot::paired().await;
    let posting = database();
    let id = bot.post(&posting).await;
    bot.fake.press_button(ADA, id, "Postgres");
    assert_eq!(bot.next_press().await.action, Action::Answer(vec![chose(&[0])]));

    bot.fake.redeliver_all();
    bot.fake.press_button(ADA, id, "Skip");
    assert_eq!(bot.next_press().await.action, Action::Decline, "the repeated press came through again");
    bot.no_press().await;
    assert_eq!(bot.fake.bot_messages(ADA).len(), 2, "the repeated /start got no second reply");
}

#[tokio::test]
async fn presses_from_elsewhere_or_out_of_shape_are_ignored() {
    let mut bot = Bot::paired().await;
    let posting = database();
    let id = bot.post(&posting).await;
    let elsewhere = bot.fake.bot_sends(MALLORY, "hello");
    bot.fake.user_presses(MALLORY, elsewhere, &format!("a:{}:0", posting.request_id));
    bot.fake.user_presses(ADA, id, "a:not-a-request:0");
    bot.fake.user_presses(ADA, id, &format!("a:{}:0:{}", posting.request_id, "9".repeat(40)));
    bot.fake.user_presses(ADA, id, &format!("a:{}:77", posting.request_id));
    bot.fake.user_replies(ADA, id, &"x".repeat(5000));
    bot.fake.user_replies(MALLORY, id, "my answer");
    bot.no_press().await;
    let answers = bot.fake.callback_answers();
    assert_eq!(answers.len(), 4, "every press is answered, so no spinner is left turning");
    assert!(answers.iter().all(|answer| answer.text.is_none()), "{answers:?}");
}

// Written answers

#[tokio::test]
async fn other_asks_for_a_reply_that_answers_the_question() {
    let mut bot = Bot::paired().await;
    let posting = database();
    let id = bot.post(&posting).await;

    bot.fake.press_button(ADA, id, "Other…");
    let prompt = bot
        .fake
        .until("the prompt", |fake| fake.bot_messages(ADA).into_iter().find(|message| message.force_reply))
        .await;
    assert_eq!(prompt.text, "Reply with your answer to: Which <b>database</b> for *prod*?");
    assert_eq!(prompt.reply_to, Some(id));
    assert_eq!(bot.fake.callback_answers()[0].text, None);

    bot.fake.user_replies(MALLORY, prompt.id, "MongoDB");
    bot.no_press().await;

    bot.fake.user_replies(ADA, prompt.id, "CockroachDB");
    let press = bot.next_press().await;
    assert_eq!(press.request_id, posting.request_id);
    assert_eq!(press.message, at(id), "the press names the question's message, not the prompt");
    assert_eq!(press.action, Action::Answer(vec![wrote("CockroachDB")]));
    let Reply::Text { chat, message } = press.reply else { panic!("{:?}", press.reply) };
    bot.telegram.respond(press.reply.clone(), &Response::Accepted).await.unwrap();
    let before = bot.fake.bot_messages(ADA).len();
    bot.telegram.respond(press.reply, &Response::AlreadyAnswered("Postgres".into())).await.unwrap();
    let told = bot.fake.bot_messages(ADA);
    assert_eq!(told.len(), before + 1, "only a refusal or a lost race is told by message");
    assert_eq!(told.last().unwrap().text, "already answered: Postgres");
    assert_eq!(told.last().unwrap().reply_to, Some(message));
    assert_eq!(chat, ADA);
}

#[tokio::test]
async fn a_written_question_is_answered_by_replying_to_it() {
    let mut bot = Bot::paired().await;
    let posting = written();
    let id = bot.post(&posting).await;
    let message = bot.fake.message(ADA, id).unwrap();
    assert!(message.text.ends_with("Reply to this message with your answer."), "{}", message.text);
    assert_eq!(message.button_texts(), ["Answer…", "Skip"]);

    bot.fake.user_replies(ADA, id, "3");
    let press = bot.next_press().await;
    assert_eq!((press.request_id, press.message.clone()), (posting.request_id, at(id)));
    assert_eq!(press.action, Action::Answer(vec![wrote("3")]));
    bot.telegram.respond(press.reply, &Response::Refused("Not answered: 3 is too few".into())).await.unwrap();
    assert_eq!(bot.fake.bot_messages(ADA).last().unwrap().text, "Not answered: 3 is too few");
}

// Forms

#[tokio::test]
async fn a_form_is_toggled_then_submitted_as_one_answer_per_question() {
    let mut bot = Bot::paired().await;
    let posting = form();
    let id = bot.post(&posting).await;
    let shown = |texts: &'static [&'static str]| {
        move |fake: &FakeTelegram| {
            let now = fake.message(ADA, id).unwrap().button_texts();
            (now == texts).then_some(())
        }
    };
    assert_eq!(
        bot.fake.message(ADA, id).unwrap().button_texts(),
        ["Areas: Auth", "Areas: Billing", "Areas: Search", "DB: Postgres", "DB: SQLite", "Submit", "Skip"]
    );
    bot.fake.press_button(ADA, id, "Areas: Auth");
    bot.fake
        .until(
            "Auth on",
            shown(&[
                "✓ Areas: Auth",
                "Areas: Billing",
                "Areas: Search",
                "DB: Postgres",
                "DB: SQLite",
                "Submit",
                "Skip",
            ]),
        )
        .await;
    bot.fake.press_button(ADA, id, "Areas: Search");
    bot.fake
        .until(
            "Search on",
            shown(&[
                "✓ Areas: Auth",
                "Areas: Billing",
                "✓ Areas: Search",
                "DB: Postgres",
                "DB: SQLite",
                "Submit",
                "Skip",
            ]),
        )
        .await;
    bot.fake.press_button(ADA, id, "DB: Postgres");
    bot.fake
        .until(
            "Postgres on",
            shown(&[
                "✓ Areas: Auth",
                "Areas: Billing",
                "✓ Areas: Search",
                "✓ DB: Postgres",
                "DB: SQLite",
                "Submit",
                "Skip",
            ]),
        )
        .await;
    bot.fake.press_button(ADA, id, "DB: SQLite");
    bot.fake
        .until(
            "SQLite instead",
            shown(&[
                "✓ Areas: Auth",
                "Areas: Billing",
                "✓ Areas: Search",
                "DB: Postgres",
                "✓ DB: SQLite",
                "Submit",
                "Skip",
            ]),
        )
        .await;
    bot.fake.press_button(ADA, id, "Submit");
    let press = bot.next_press().await;
    assert_eq!((press.request_id, press.message.clone()), (posting.request_id, at(id)));
    assert_eq!(press.action, Action::Answer(vec![chose(&[0, 2]), chose(&[1])]));
    bot.no_press().await;
    assert_eq!(bot.fake.callback_answers().len(), 4, "each toggle's spinner is ended");
}

// Settling

#[tokio::test]
async fn a_settled_question_shows_how_it_ended_and_loses_its_buttons() {
    let bot = Bot::paired().await;
    let posting = database();
    let id = bot.post(&posting).await;
    let settled = Settled {
        status: QuestionStatus::Answered,
        summary: "Postgres".into(),
        via: Some(AnsweredVia::Telegram),
        by: Some("@ada".into()),
    };
    bot.telegram.settle(&at(id), &posting, &settled).await.unwrap();
    let message = bot.fake.message(ADA, id).unwrap();
    assert!(message.text.starts_with("research › summariser asks\n\nDB\nWhich <b>database</b> for *prod*?"));
    assert!(message.text.ends_with("\n\nAnswered: Postgres — by @ada via Telegram"), "{}", message.text);
    assert_eq!(message.reply_markup, None);
    bot.telegram.settle(&at(id), &posting, &settled).await.expect("settling twice is no error");
}

// The long-poll loop

#[tokio::test]
async fn polling_goes_on_through_conflicts_rate_limits_and_bad_gateways() {
    let mut bot = Bot::paired().await;
    let posting = database();
    let id = bot.post(&posting).await;
    bot.fake.fail_next_get_updates(409, 1);
    bot.fake.fail_next_get_updates(429, 1);
    bot.fake.fail_next_get_updates(502, 1);
    bot.fake.until("the failures to begin", |fake| (fake.get_updates_failures_left() < 3).then_some(())).await;

    bot.fake.press_button(ADA, id, "Postgres");
    let press = bot.next_press_through_failures().await;
    assert_eq!(press.action, Action::Answer(vec![chose(&[0])]));
    assert_eq!(bot.fake.get_updates_failures_left(), 0, "the press came through only after the failures");
    bot.fake.press_button(ADA, id, "SQLite");
    assert_eq!(bot.next_press().await.action, Action::Answer(vec![chose(&[1])]));
    bot.no_press().await;
}

#[tokio::test]
async fn a_new_run_starts_from_the_stored_offset() {
    let mut bot = Bot::paired().await;
    let posting = database();
    let id = bot.post(&posting).await;
    bot.fake.press_button(ADA, id, "Postgres");
    bot.next_press().await;
    bot.fake.until_confirmed().await;
    let (fake, state) = bot.stop().await;
    let offset: i64 = state.get("telegram.offset").await.unwrap().unwrap().parse().unwrap();
    assert_eq!(offset, 3, "two updates handled: /start and the press");

    // Telegram sends every old update again; the new run must not hand any over.
    fake.until("the old run's poll to end", |fake| (fake.polls_in_flight() == 0).then_some(())).await;
    fake.redeliver_all();
    let mut bot = Bot::listen(fake, state);
    bot.fake.press_button(ADA, id, "Skip");
    assert_eq!(bot.next_press().await.action, Action::Decline, "an old update was replayed");
    bot.no_press().await;
}

#[tokio::test]
async fn listening_stops_at_once_during_a_long_poll() {
    let fake = FakeTelegram::start(TOKEN).await;
    let config = TelegramConfig { poll_timeout: Duration::from_secs(40), ..config(&fake.base()) };
    let telegram = Arc::new(Telegram::new(config, reqwest::Client::new(), Arc::new(MemoryState::default())));
    let (sender, _presses) = mpsc::channel(1);
    let stop = CancellationToken::new();
    let listener = tokio::spawn(telegram.listen(sender, stop.clone()));
    fake.until("a long poll", |fake| (fake.polls_in_flight() == 1).then_some(())).await;
    stop.cancel();
    tokio::time::timeout(Duration::from_secs(2), listener).await.expect("still polling").unwrap();
}

// Finding a post left in doubt

#[tokio::test]
async fn a_post_whose_answer_was_lost_is_found_past_the_mark() {
    let bot = Bot::paired().await;
    let posting = database();
    let mark = bot.telegram.mark(&posting, 0).await.unwrap();
    assert_eq!(mark, format!("{ADA}:2"));
    bot.fake.lose_next_send();
    let err = bot.telegram.post(&posting).await.unwrap_err();
    assert!(err.is_transient(), "{err}");
    let before = bot.fake.message(ADA, 3).unwrap();

    let found = bot.telegram.find_posted(&posting, &mark).await.unwrap();
    assert_eq!(found, Some(at(3)));
    assert_eq!(bot.fake.message(ADA, 3).unwrap(), before, "the probe changed nothing");
    assert_eq!(bot.fake.bot_messages(ADA).len(), 2);
}

#[tokio::test]
async fn the_persons_messages_after_the_mark_are_passed_over() {
    let bot = Bot::paired().await;
    let posting = database();
    let mark = bot.telegram.mark(&posting, 0).await.unwrap();
    bot.fake.user_sends(ADA, "are you there?");
    bot.fake.lose_next_send();
    bot.telegram.post(&posting).await.unwrap_err();
    assert_eq!(bot.telegram.find_posted(&posting, &mark).await.unwrap(), Some(at(4)));
}

#[tokio::test]
async fn with_nothing_posted_after_the_mark_nothing_is_found() {
    let bot = Bot::paired().await;
    let posting = database();
    let mark = bot.telegram.mark(&posting, 0).await.unwrap();
    assert_eq!(bot.telegram.find_posted(&posting, &mark).await.unwrap(), None);
    bot.fake.user_sends(ADA, "just me");
    assert_eq!(bot.telegram.find_posted(&posting, &mark).await.unwrap(), None);
    assert_eq!(bot.fake.message(ADA, 3).unwrap().text, "just me");
}

#[tokio::test]
async fn a_form_toggled_before_it_was_found_is_still_found() {
    let bot = Bot::paired().await;
    let posting = form();
    let mark = bot.telegram.mark(&posting, 0).await.unwrap();
    let notice = bot.fake.bot_sends(ADA, "a notice an earlier run sent");
    bot.fake.lose_next_send();
    bot.telegram.post(&posting).await.unwrap_err();
    bot.fake.press_button(ADA, 4, "Areas: Auth");
    bot.fake
        .until("Auth on", |fake| fake.message(ADA, 4).unwrap().button_texts()[0].starts_with('✓').then_some(()))
        .await;

    assert_eq!(bot.telegram.find_posted(&posting, &mark).await.unwrap(), Some(at(4)));
    assert_eq!(bot.fake.message(ADA, notice).unwrap().reply_markup, None, "the other message keeps no buttons");
    assert_eq!(bot.fake.message(ADA, 4).unwrap().button_texts()[0], "Areas: Auth", "the form starts afresh");
}

// Secrets

#[tokio::test]
async fn the_token_never_shows() {
    let fake = FakeTelegram::start(TOKEN).await;
    let state = Arc::new(MemoryState::default());
    state.set("telegram.chat", &ADA.to_string()).await.unwrap();
    let config = config(&fake.base());
    let telegram = Telegram::new(config.clone(), reqwest::Client::new(), state.clone());
    assert!(!format!("{config:?}").contains(TOKEN));
    assert!(!format!("{telegram:?}").contains(TOKEN));

    let wrong = "999999:WRONG-token";
    let config_wrong = TelegramConfig { token: wrong.into(), ..config.clone() };
    let err = Telegram::new(config_wrong, reqwest::Client::new(), state.clone()).post(&database()).await.unwrap_err();
    assert!(matches!(&err, Error::Refused { detail, .. } if detail == "Unauthorized"), "{err}");
    assert!(!format!("{err} {err:?}").contains(wrong));

    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let err = Telegram::new(TelegramConfig { api_base: base, ..config.clone() }, reqwest::Client::new(), state.clone())
        .post(&database())
        .await
        .unwrap_err();
    assert!(matches!(&err, Error::Unreachable { .. }), "{err}");
    assert!(!format!("{err} {err:?}").contains(TOKEN), "{err:?}");

    let sneaky = TelegramConfig { token: "1:a/../../getMe?".into(), ..config };
    let err = Telegram::new(sneaky, reqwest::Client::new(), state).post(&database()).await.unwrap_err();
    assert!(matches!(&err, Error::Refused { .. }), "{err}");
    assert!(!err.to_string().contains("getMe"), "{err}");
}
