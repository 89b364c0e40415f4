//! Telegram pairing in the real window: with Telegram configured (a fake Bot API on loopback
//! that the app polls), Settings › Channels makes no code until the person presses Pair a chat,
//! then shows `/start <code>`; the chat that sends it is paired, and the window says so. A second
//! chat using a new code replaces it only once the person confirms it in the window, and the
//! first chat is told.

use beckon_e2e::{App, Failure, FakeTelegram, Home, eventually};
use serde_json::json;

const TOKEN: &str = "123456:AAE-test_token_xyz";
/// The person's private chat.
const ADA: i64 = 4242;
/// The person's chat on a new phone.
const ADA_NEW_PHONE: i64 = 5151;

/// Settings with Telegram on, its bot at `fake`.
fn with_telegram(home: &Home, fake: &FakeTelegram) -> Result<(), Failure> {
    let settings = json!({
        "guide_dismissed": true,
        "telegram": {"enabled": true, "bot_token": TOKEN, "api_base_url": fake.base()},
    });
    std::fs::write(home.data_dir().join("settings.json"), settings.to_string())?;
    Ok(())
}

#[tokio::test]
async fn pair_a_chat_shows_the_code_in_settings_and_a_new_chat_replaces_the_paired_one_once_confirmed()
-> Result<(), Failure> {
    let home = Home::new()?;
    let fake = FakeTelegram::start().await?;
    with_telegram(&home, &fake)?;
    let app = App::launch(&home).await?;
    eventually("the app polling the fake Telegram", || (fake.polls() > 0).then_some(())).await?;

    app.click("button[aria-label=Settings], a[aria-label=Settings]", "").await?;
    app.find("h1", "Settings").await?;
    let pairing = app.find(".pairing", "No chat is paired yet.").await?;
    assert!(!pairing.text().await?.contains("/start"), "no code until the person asks for one");

    app.click(".pairing button", "Pair a chat").await?;
    let command = app.find(".pairing-command code", "/start ").await?.text().await?;
    let code = command.strip_prefix("/start ").expect("the command the bot is sent").to_owned();
    assert_eq!(code.len(), 8, "{command}");
    assert!(code.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()), "{command}");
    app.find(".pairing-command", "to your bot before").await?;

    fake.user_sends(ADA, &command);
    eventually("the bot confirming the pairing", || {
        fake.sent_to(ADA).iter().any(|text| text.starts_with("Paired with Beckon")).then_some(())
    })
    .await?;
    app.click(".pairing button", "Refresh").await?;
    app.find(".pairing", &format!("Paired with chat {ADA}.")).await?;
    app.find(".pairing button", "Pair another chat").await?;
    assert!(!app.text().await?.contains(&code), "a used code is no longer shown");

    app.click(".pairing button", "Pair another chat").await?;
    let command = app.find(".pairing-command code", "/start ").await?.text().await?;
    fake.user_sends(ADA_NEW_PHONE, &command);
    eventually("the new chat told to wait for confirmation", || {
        fake.sent_to(ADA_NEW_PHONE)
            .iter()
            .any(|text| text.contains("confirm this one in Beckon's window"))
            .then_some(())
    })
    .await?;
    app.click(".pairing button", "Refresh").await?;
    let ask = app.find(".confirm-row", &format!("wants to replace chat {ADA}.")).await?.text().await?;
    assert!(ask.starts_with(&format!("Chat {ADA_NEW_PHONE} (Ada) wants")), "{ask}");
    app.find(".pairing", &format!("Paired with chat {ADA}.")).await?;
    app.click(".confirm-row button", "Confirm").await?;
    app.find(".pairing", &format!("Paired with chat {ADA_NEW_PHONE}.")).await?;
    eventually("the old chat told it is no longer paired", || {
        fake.sent_to(ADA).iter().any(|text| text.starts_with("This chat is no longer paired with Beckon")).then_some(())
    })
    .await?;
    app.quit().await
}
