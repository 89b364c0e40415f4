//! The pairing code never reaches the log: Telegram's channel started as the app starts it on a
//! real Beckon with no chat paired, a code made, refused (wrong, expired) and used, with every
//! event and span of every crate captured at every level. A code in the log would let anyone
//! who reads it (a shared terminal, a support bundle, a journal) pair their own chat.
//!
//! Alone in its file: the capture is the process's one global subscriber.

use std::sync::Arc;
use std::time::Duration;

use beckon_channels::{Channels, new_telegram_pairing_code, telegram_pairing};
use beckon_runtime::ManualClock;
use beckon_runtime::settings::ChannelFile;
use beckon_runtime::{Beckon, RuntimeConfig, StartOptions};
use beckon_testkit::fake_telegram::FakeTelegram;

use crate::support::captured_log::CapturedLog;

const TOKEN: &str = "123456:AAE-test_token_xyz";
const ADA: i64 = 4242;
const MALLORY: i64 = 777;
const PATIENCE: Duration = Duration::from_secs(15);

/// Waits until the log shows `what`.
async fn logged(log: &CapturedLog, what: &str) {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while !log.text().contains(what) {
        assert!(tokio::time::Instant::now() < deadline, "the log never said {what:?}:\n{}", log.text());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pairing_code_never_reaches_the_log() {
    let log = CapturedLog::install();
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
    logged(&log, "no chat is paired yet").await;

    let mut codes = vec![new_telegram_pairing_code(&beckon).await.unwrap().code.unwrap()];
    telegram.user_sends(MALLORY, "/start WRONGCODE");
    clock.advance(Duration::from_secs(11 * 60));
    telegram.user_sends(ADA, &format!("/start {}", codes[0]));
    telegram.until_confirmed().await;
    codes.push(new_telegram_pairing_code(&beckon).await.unwrap().code.unwrap());
    telegram.user_sends(ADA, &format!("/start {}", codes[1]));
    telegram.until("the pairing reply", |fake| fake.bot_messages(ADA).first().cloned()).await;
    assert_eq!(telegram_pairing(&beckon).await.unwrap().chat, Some(ADA.to_string()));
    logged(&log, "paired with a Telegram chat").await;
    channels.stop().await;

    let text = log.text();
    for code in &codes {
        assert!(!text.contains(code.as_str()), "the code {code} is in the log:\n{text}");
    }
}
