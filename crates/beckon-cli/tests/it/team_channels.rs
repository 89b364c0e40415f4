//! A person pairs their own Telegram chat with a team server, in Chromium against the real
//! `beckon serve` (its settings name a fake Telegram that speaks the Bot API): their page gives a
//! code, the bot hears `/start <code>` from their chat and says so, their page then shows the chat;
//! their agent's approval goes to that chat (and nowhere else), Allow pressed there is their
//! answer, and the agent reads it with their name.

use beckon_testkit::fake_telegram::FakeTelegram;
use serde_json::json;

use crate::support::team;
use crate::support::team::{person, workspace};

const TOKEN: &str = "123456:AAE-team_token";
/// Ada's private chat with the bot (and her Telegram user id).
const ADA: i64 = 4242;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_pairs_their_telegram_chat_from_their_page_and_answers_there_as_themselves() {
    let ui = workspace().join("ui/dist");
    assert!(ui.join("index.html").exists(), "the window is not built: run `npm run build` in ui/ (scripts/test does)");
    let telegram = FakeTelegram::start(TOKEN).await;
    telegram.name_user(ADA, "ada");
    let settings = json!({"telegram": {"enabled": true, "bot_token": TOKEN, "api_base_url": telegram.base()}});
    let people = vec![person("ada", "Ada Lovelace", &["eng"]), person("bo", "Bo", &["eng"])];
    let team = team::team_with_settings(people, &["--ui-dir", ui.to_str().unwrap()], Some(settings)).await;

    let paired = team::chromium("pairing.mjs", &["pair", &team.url, "ada"]).await;
    assert_eq!(paired["problems"], json!([]), "{paired}");
    let code = paired["code"].as_str().unwrap_or_else(|| panic!("no code on the page: {paired}"));
    assert!(paired["instruction"].as_str().unwrap().contains("Telegram"), "{paired}");
    team::assert_accessible("the pairing code", &paired["axe"]);
    assert!(!team.server.log_tail(1).contains(code), "the code is not in the server's log");

    telegram.user_sends(ADA, &format!("/start {code}"));
    let reply = telegram
        .until("the bot's reply", |fake| fake.bot_messages(ADA).into_iter().find(|m| m.text.contains("Paired")))
        .await;
    assert!(reply.text.contains("Paired with Ada Lovelace"), "{}", reply.text);
    let looked = team::chromium("pairing.mjs", &["look", &team.url, "ada"]).await;
    assert!(looked["shown"].as_str().unwrap().contains(&format!("Telegram: paired ({ADA})")), "{looked}");

    // Ada's agent asks; the approval comes to her chat, and Allow there is her answer.
    let adas_token = team.token_for("ada-laptop", "person:ada").await;
    let approval =
        json!({"agent": "claude-code", "approval": {"tool_name": "Bash", "input": {"command": "make release"}}});
    let asked = team.ask(&adas_token, approval).await;
    let message = telegram
        .until("the approval in Ada's chat", |fake| {
            fake.bot_messages(ADA).into_iter().find(|m| m.text.contains("make release") && m.reply_markup.is_some())
        })
        .await;
    telegram.press_button(ADA, message.id, "Allow");
    let waited = team
        .http
        .get(format!("{}/v1/questions/{asked}?wait=20", team.url))
        .bearer_auth(&adas_token)
        .send()
        .await
        .unwrap()
        .json::<serde_json::Value>()
        .await
        .unwrap();
    assert_eq!(waited["status"], "answered", "{waited}");
    assert_eq!(waited["answered_by"], "oidc:ada (Ada Lovelace <ada@example.com>)", "{waited}");
    assert_eq!(waited["answered_via"], "telegram", "{waited}");
}
