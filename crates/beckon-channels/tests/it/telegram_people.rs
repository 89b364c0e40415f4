//! People on a team server pair their own Telegram chats: against a fake Telegram speaking the
//! Bot API, each person sends the bot `/start <code>` with a code from their page; a question
//! addressed to a person or group goes to the private chat of each of them who paired one (one
//! message each, and to no other chat), a press there is that person's answer (another person's
//! crafted press answers nothing), and a stranger's wrong code gets no reply at all; after five
//! wrong codes a chat is not heard for a while, not even with a right one.

use beckon_channels::Channels;
use beckon_core::{AnsweredVia, Approval, Audience, QuestionRequest};
use beckon_runtime::settings::ChannelFile;
use beckon_runtime::{Beckon, RuntimeConfig, StartOptions};
use beckon_store::{QuestionStatus, SignedIn};
use beckon_testkit::fake_telegram::{FakeMessage, FakeTelegram};
use serde_json::json;

use crate::support::people::{ask_for, signed_in};

const TOKEN: &str = "123456:AAE-test_token_xyz";
/// Ada's and Bo's private chats with the bot (and their user ids).
const ADA: i64 = 4242;
const BO: i64 = 5151;
/// Someone else who found the bot.
const MALLORY: i64 = 777;

struct World {
    _dir: tempfile::TempDir,
    beckon: Beckon,
    telegram: FakeTelegram,
    channels: Option<Channels>,
}

impl World {
    async fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let beckon = Beckon::start(RuntimeConfig::new(dir.path()), StartOptions::default()).await.unwrap();
        let telegram = FakeTelegram::start(TOKEN).await;
        telegram.name_user(ADA, "ada");
        telegram.name_user(BO, "bo");
        let file = ChannelFile {
            enabled: true,
            bot_token: Some(TOKEN.into()),
            api_base_url: Some(telegram.base()),
            ..ChannelFile::default()
        };
        let channels = Channels::start(&beckon, &ChannelFile::default(), &file, false);
        assert_eq!(channels.running(), 1);
        World { _dir: dir, beckon, telegram, channels: Some(channels) }
    }

    /// `chat` pairs as `person` with a code from the person's page.
    async fn pair(&self, chat: i64, person: &SignedIn) {
        let code = self.beckon.pairings().new_code("telegram", person).await.unwrap().code;
        self.telegram.user_sends(chat, &format!("/start {code}"));
        let name = person.name.clone().unwrap();
        let reply = self
            .telegram
            .until("the pairing reply", |fake| {
                fake.bot_messages(chat).into_iter().find(|m| m.text.contains("Paired with"))
            })
            .await;
        assert!(reply.text.contains(&format!("Paired with {name}")), "{}", reply.text);
    }

    /// The bot's message in `chat` that asks `words`.
    async fn asked(&self, chat: i64, words: &str) -> FakeMessage {
        self.telegram
            .until("the question's message", |fake| {
                fake.bot_messages(chat).into_iter().find(|m| m.text.contains(words) && m.reply_markup.is_some())
            })
            .await
    }

    async fn stop(mut self) {
        if let Some(channels) = self.channels.take() {
            channels.stop().await;
        }
    }
}

fn approval(command: &str) -> QuestionRequest {
    let approval = json!({"tool_name": "Bash", "input": {"command": command}});
    QuestionRequest::for_approval(Approval::parse(&approval, "approval").unwrap())
}

fn question() -> QuestionRequest {
    QuestionRequest::parse(&json!({"questions": [{"question": "Which region?", "header": "Region",
        "multiSelect": false, "options": [{"label": "eu-west"}, {"label": "us-east"}]}]}))
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_five_wrong_codes_a_chat_is_not_heard_even_with_a_right_one_and_others_still_pair() {
    let world = World::new().await;
    let (ada, bo) = (signed_in("ada", "Ada Lovelace"), signed_in("bo", "Bo Lindqvist"));
    for guess in ["ACDEFGHJ", "KMNPQRTU", "VWXY3467", "9ACDEFGH", "JKMNPQRT"] {
        world.telegram.user_sends(MALLORY, &format!("/start {guess}"));
    }
    // A right code from the same chat is not even looked up.
    let code = world.beckon.pairings().new_code("telegram", &ada).await.unwrap().code;
    world.telegram.user_sends(MALLORY, &format!("/start {code}"));
    // Updates are handled in order: once Bo's chat, which wrote after, has paired, every one of
    // Mallory's codes was heard.
    world.pair(BO, &bo).await;
    assert_eq!(world.beckon.pairings().person("telegram", &MALLORY.to_string()).await.unwrap(), None);
    assert!(world.telegram.bot_messages(MALLORY).is_empty(), "no reply, as to any code that does not pair");
    // The code is still good: Ada's own chat pairs with it.
    world.telegram.user_sends(ADA, &format!("/start {code}"));
    let reply = world
        .telegram
        .until("Ada's pairing reply", |fake| {
            fake.bot_messages(ADA).into_iter().find(|m| m.text.contains("Paired with"))
        })
        .await;
    assert!(reply.text.contains("Paired with Ada Lovelace"), "{}", reply.text);
    assert_eq!(world.beckon.pairings().account("telegram", "ada").await.unwrap().unwrap().account, ADA.to_string());
    world.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_addressed_to_people_goes_to_their_own_chats_and_is_answered_as_them() {
    let world = World::new().await;
    // A stranger's guess gets no reply, and pairs nothing.
    world.telegram.user_sends(MALLORY, "/start ACDEFGHJ");
    let (ada, bo) = (signed_in("ada", "Ada Lovelace"), signed_in("bo", "Bo Lindqvist"));
    world.pair(ADA, &ada).await;
    world.pair(BO, &bo).await;
    assert!(world.telegram.bot_messages(MALLORY).is_empty(), "a wrong code gets no reply");
    assert_eq!(world.beckon.pairings().person("telegram", &MALLORY.to_string()).await.unwrap(), None);
    assert_eq!(world.beckon.pairings().account("telegram", "bo").await.unwrap().unwrap().account, BO.to_string());

    let for_ada = ask_for(&world.beckon, Audience::Person("ada".into()), approval("terraform apply")).await;
    let for_eng = ask_for(&world.beckon, Audience::Group("eng".into()), question()).await;
    let adas = world.asked(ADA, "terraform apply").await;
    let group_in_adas = world.asked(ADA, "Which region?").await;
    let group_in_bos = world.asked(BO, "Which region?").await;
    assert!(
        world.telegram.bot_messages(BO).iter().all(|m| !m.text.contains("terraform")),
        "Ada's approval is in her chat only"
    );
    assert!(world.telegram.messages(MALLORY).iter().all(|m| !m.from_bot));

    // Bo's chat sends Ada's Allow (a crafted press on a message of his): it answers nothing.
    let (_, allow) = adas.buttons().into_iter().find(|(text, _)| text == "Allow").unwrap();
    let query = world.telegram.user_presses(BO, group_in_bos.id, &allow);
    let refusal = world
        .telegram
        .until("Bo to be told", |fake| fake.callback_answers().into_iter().find(|answer| answer.query == query))
        .await;
    assert!(refusal.text.as_deref().unwrap_or_default().contains("does not belong"), "{refusal:?}");
    assert_eq!(world.beckon.inbox().question(for_ada).await.unwrap().status, QuestionStatus::Pending);

    // Ada allows from her chat: the answer is hers, by the team's name for her.
    world.telegram.press_button(ADA, adas.id, "Allow");
    world
        .telegram
        .until("the approval's message to show it", |fake| {
            fake.message(ADA, adas.id).filter(|m| m.reply_markup.is_none()).map(drop)
        })
        .await;
    let allowed = world.beckon.inbox().question(for_ada).await.unwrap();
    assert_eq!(allowed.status, QuestionStatus::Answered);
    assert_eq!(allowed.answered_via, Some(AnsweredVia::Telegram));
    assert_eq!(allowed.answered_by.as_deref(), Some("oidc:ada (Ada Lovelace <ada@example.com>)"));

    // Bo answers the group's question in his chat; Ada's copy then shows his answer.
    world.telegram.press_button(BO, group_in_bos.id, "us-east");
    world
        .telegram
        .until("Ada's copy to show the answer", |fake| {
            fake.message(ADA, group_in_adas.id)
                .filter(|m| m.reply_markup.is_none() && m.text.contains("us-east"))
                .map(drop)
        })
        .await;
    let answered = world.beckon.inbox().question(for_eng).await.unwrap();
    assert_eq!(answered.answered_by.as_deref(), Some("oidc:bo (Bo Lindqvist <bo@example.com>)"));
    world.stop().await;
}
