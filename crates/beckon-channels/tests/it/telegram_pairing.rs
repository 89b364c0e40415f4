//! Pairing a Telegram chat on a real Beckon (a real store, the runtime's clock a manual one)
//! with its channels started as the app starts them, against a fake Bot API: a code is made only
//! when the person asks, lives ten minutes by the runtime's clock, and a new chat replaces the
//! paired one only once the person confirms it in the window.

use std::sync::Arc;
use std::time::Duration;

use beckon_channels::{
    Channels, Error, TelegramChatRequest, confirm_telegram_chat, new_telegram_pairing_code, refuse_telegram_chat,
    telegram_pairing,
};
use beckon_runtime::ManualClock;
use beckon_runtime::settings::ChannelFile;
use beckon_runtime::{Beckon, RuntimeConfig, StartOptions};
use beckon_testkit::fake_telegram::FakeTelegram;

const TOKEN: &str = "123456:AAE-test_token_xyz";
/// The person's chat.
const ADA: i64 = 4242;
/// Another private chat that wants to be paired.
const BOB: i64 = 5151;

/// A Beckon on a manual clock with its channels running against a fake Telegram.
struct World {
    _dir: tempfile::TempDir,
    beckon: Beckon,
    clock: ManualClock,
    telegram: FakeTelegram,
    file: ChannelFile,
    channels: Option<Channels>,
}

impl World {
    async fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let clock = ManualClock::new(1_750_000_000_000);
        let options = StartOptions { clock: Arc::new(clock.clone()), ..StartOptions::default() };
        let beckon = Beckon::start(RuntimeConfig::new(dir.path()), options).await.unwrap();
        let telegram = FakeTelegram::start(TOKEN).await;
        let file = ChannelFile {
            enabled: true,
            bot_token: Some(TOKEN.into()),
            api_base_url: Some(telegram.base()),
            ..ChannelFile::default()
        };
        let channels = Channels::start(&beckon, &ChannelFile::default(), &file, false);
        assert_eq!(channels.running(), 1);
        telegram.name_user(BOB, "bob");
        World { _dir: dir, beckon, clock, telegram, file, channels: Some(channels) }
    }

    /// Ada's chat paired with a code the person asked for.
    async fn with_ada() -> World {
        let world = World::new().await;
        let code = world.new_code().await;
        world.start(ADA, &code).await;
        assert_eq!(world.paired().await, Some(ADA.to_string()));
        world
    }

    /// The person asks for a code to pair a chat.
    async fn new_code(&self) -> String {
        new_telegram_pairing_code(&self.beckon).await.unwrap().code.unwrap()
    }

    async fn paired(&self) -> Option<String> {
        telegram_pairing(&self.beckon).await.unwrap().chat
    }

    /// `chat` sends `/start <code>`; returns once the channel has handled it.
    async fn start(&self, chat: i64, code: &str) {
        self.telegram.user_sends(chat, &format!("/start {code}"));
        self.telegram.until_confirmed().await;
    }

    async fn stop(mut self) {
        if let Some(channels) = self.channels.take() {
            channels.stop().await;
        }
    }
}

#[tokio::test]
async fn an_eleven_minute_old_code_is_refused_and_the_paired_chat_stays() {
    let world = World::with_ada().await;
    let code = world.new_code().await;
    world.clock.advance(Duration::from_secs(11 * 60));
    world.start(BOB, &code).await;
    assert_eq!(world.paired().await, Some(ADA.to_string()), "an expired code changes nothing");
    assert!(world.telegram.bot_messages(BOB).is_empty(), "and gets no reply");
    world.stop().await;
}

#[tokio::test]
async fn a_code_is_made_only_when_the_person_asks_and_shown_while_it_is_good() {
    let world = World::new().await;
    let none = telegram_pairing(&world.beckon).await.unwrap();
    assert_eq!((none.code, none.chat), (None, None), "reading the pairing makes no code");
    assert_eq!(telegram_pairing(&world.beckon).await.unwrap().code, None, "nor does reading it again");

    let asked = new_telegram_pairing_code(&world.beckon).await.unwrap();
    let code = asked.code.clone().unwrap();
    assert_eq!(asked.code_expires_at_ms, Some(world.beckon.now_ms() + 10 * 60 * 1000));
    assert_eq!(telegram_pairing(&world.beckon).await.unwrap(), asked, "the settings show it again while it is good");
    world.clock.advance(Duration::from_secs(10 * 60));
    assert_eq!(telegram_pairing(&world.beckon).await.unwrap().code, None, "and no longer once it has expired");
    world.start(ADA, &code).await;
    assert_eq!(world.paired().await, None);
    world.stop().await;
}

#[tokio::test]
async fn a_new_chat_replaces_the_paired_one_only_once_the_person_confirms_and_the_old_one_is_told() {
    let world = World::with_ada().await;
    let ada_told = world.telegram.bot_messages(ADA).len();
    let code = world.new_code().await;
    world.start(BOB, &code).await;
    assert_eq!(world.paired().await, Some(ADA.to_string()), "nothing changes before the person confirms");
    let waiting = world.telegram.until("Bob told to wait", |fake| fake.bot_messages(BOB).first().cloned()).await;
    assert!(waiting.text.contains("confirm this one in Beckon's window"), "{}", waiting.text);
    let pairing = telegram_pairing(&world.beckon).await.unwrap();
    assert_eq!(pairing.request, Some(TelegramChatRequest { chat: BOB.to_string(), name: Some("@bob".into()) }));
    assert_eq!(pairing.code, None, "the code is used up");

    let pairing = confirm_telegram_chat(&world.beckon, &world.file, &BOB.to_string()).await.unwrap();
    assert_eq!((pairing.chat, pairing.request), (Some(BOB.to_string()), None));
    let told = world.telegram.bot_messages(ADA);
    assert_eq!(told.len(), ada_told + 1);
    assert!(told[ada_told].text.starts_with("This chat is no longer paired with Beckon"), "{}", told[ada_told].text);
    let bob = world.telegram.bot_messages(BOB);
    assert!(bob.last().unwrap().text.starts_with("Paired with Beckon"), "{:?}", bob);

    let again = confirm_telegram_chat(&world.beckon, &world.file, &BOB.to_string()).await;
    assert!(matches!(again, Err(Error::NoPairingRequest)), "settled: {again:?}");
    world.stop().await;
}

#[tokio::test]
async fn a_refused_or_lapsed_request_leaves_the_paired_chat_untold() {
    let world = World::with_ada().await;
    let ada_told = world.telegram.bot_messages(ADA).len();
    let code = world.new_code().await;
    world.start(BOB, &code).await;
    let pairing = refuse_telegram_chat(&world.beckon, &BOB.to_string()).await.unwrap();
    assert_eq!((pairing.chat, pairing.request), (Some(ADA.to_string()), None));
    let late = confirm_telegram_chat(&world.beckon, &world.file, &BOB.to_string()).await;
    assert!(matches!(late, Err(Error::NoPairingRequest)), "refused: {late:?}");

    let code = world.new_code().await;
    world.start(BOB, &code).await;
    world.clock.advance(Duration::from_secs(10 * 60));
    assert_eq!(telegram_pairing(&world.beckon).await.unwrap().request, None, "lapsed");
    let late = confirm_telegram_chat(&world.beckon, &world.file, &BOB.to_string()).await;
    assert!(matches!(late, Err(Error::NoPairingRequest)), "lapsed: {late:?}");
    assert_eq!(world.paired().await, Some(ADA.to_string()));
    assert_eq!(world.telegram.bot_messages(ADA).len(), ada_told, "Ada was told nothing");
    world.stop().await;
}
