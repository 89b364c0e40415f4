//! Settings › Agents and Settings › Other machines in the real window: connecting an agent
//! writes its real configuration file (and disconnecting takes Beckon out of it again), and an
//! ask-only token made there asks through the gateway until it is revoked there.

use beckon_e2e::gateway::request_as;
use beckon_e2e::{App, Failure, Home};
use serde_json::{Value, json};

async fn open_settings(app: &App) -> Result<(), Failure> {
    app.click("button[aria-label=Settings], a[aria-label=Settings]", "").await?;
    app.find("h1", "Settings").await?;
    app.find(".settings-view fieldset.agents[aria-busy=false]", "").await?;
    Ok(())
}

fn hook_commands(settings: &Value) -> Vec<String> {
    let mut commands = Vec::new();
    for groups in settings["hooks"].as_object().into_iter().flat_map(|hooks| hooks.values()) {
        for group in groups.as_array().into_iter().flatten() {
            for hook in group["hooks"].as_array().into_iter().flatten() {
                commands.extend(hook["command"].as_str().map(str::to_owned));
            }
        }
    }
    commands
}

#[tokio::test]
async fn connecting_an_agent_in_settings_writes_its_configuration_and_disconnecting_takes_it_out() -> Result<(), Failure>
{
    let home = Home::new()?;
    let file = home.path().join(".claude/settings.json");
    std::fs::create_dir_all(file.parent().unwrap())?;
    std::fs::write(&file, r#"{"model": "opus", "permissions": {"allow": ["Bash(ls:*)"]}}"#)?;
    let app = App::launch(&home).await?;
    open_settings(&app).await?;
    app.find("li[data-agent=claude-code] .agent-state", "Not").await?;
    app.click("li[data-agent=claude-code] button", "Connect").await?;
    app.find("li[data-agent=claude-code] .agent-state", "Connected").await?;
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&file)?)?;
    assert_eq!(written["model"], "opus", "the person's own settings stay: {written}");
    let commands = hook_commands(&written);
    assert!(
        !commands.is_empty() && commands.iter().all(|c| c.ends_with(" hook claude-code")),
        "the hooks run beckon hook claude-code: {written}"
    );
    assert!(written["permissions"]["allow"].as_array().unwrap().contains(&json!("Bash(ls:*)")));

    app.click("li[data-agent=claude-code] button", "Disconnect").await?;
    app.find("li[data-agent=claude-code] .agent-state", "Not").await?;
    let left: Value = serde_json::from_str(&std::fs::read_to_string(&file)?)?;
    assert_eq!(left, json!({"model": "opus", "permissions": {"allow": ["Bash(ls:*)"]}}), "only Beckon's entries went");

    // Gemini CLI's row says what Beckon cannot do for it.
    app.find("li[data-agent=gemini] .agent-limits", "lets no outside program approve").await?;
    app.quit().await
}

#[tokio::test]
async fn an_ask_only_token_made_in_settings_asks_until_it_is_revoked_there() -> Result<(), Failure> {
    let home = Home::new()?;
    let app = App::launch(&home).await?;
    open_settings(&app).await?;
    let name = app.find(".settings-view fieldset.tokens input[placeholder=devbox]", "").await?;
    name.send_keys("devbox").await?;
    app.click(".settings-view fieldset.tokens button", "Make an ask-only token").await?;
    let secret_field = app.find(".token-made input[readonly]", "").await?;
    let secret = secret_field.prop("value").await?.unwrap_or_default();
    assert!(secret.starts_with("bkn_ask_"), "{secret}");
    app.find("li[data-token=devbox]", "never used").await?;

    let data = home.data_dir();
    let body = json!({"agent": "devbox-agent", "questions": [{"question": "Ship it?", "header": "Ship",
        "options": [{"label": "Yes"}, {"label": "No"}]}]});
    let (status, created) = request_as(&data, &secret, "POST", "/v1/questions", Some(&body)).await?;
    assert!(status.contains(" 201 "), "the token asks: {status} {created}");
    let id = created["request_id"].as_str().unwrap();
    let (status, own) = request_as(&data, &secret, "GET", &format!("/v1/questions/{id}"), None).await?;
    assert!(status.contains(" 200 ") && own["status"] == "pending", "it reads its own question: {status} {own}");
    let (status, _) = request_as(&data, &secret, "GET", "/v1/questions", None).await?;
    assert!(status.contains(" 403 "), "an ask-only token lists nothing: {status}");

    app.click("li[data-token=devbox] button", "Revoke").await?;
    // The row goes once the runtime has revoked it.
    let started = std::time::Instant::now();
    while app.eval("return document.querySelector('li[data-token=devbox]') !== null").await? == json!(true) {
        assert!(started.elapsed() < std::time::Duration::from_secs(20), "the revoked token stays listed");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let (status, refused) = request_as(&data, &secret, "POST", "/v1/questions", Some(&body)).await?;
    assert!(status.contains(" 401 "), "a revoked token is refused at once: {status} {refused}");
    app.quit().await
}
