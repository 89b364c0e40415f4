//! The real app, end to end: the debug binary under Xvfb, driven through tauri-driver and
//! WebKitWebDriver, with a fresh home and data folder per test.

use beckon_e2e::{App, Failure, Home};
use fantoccini::Locator;
use serde_json::json;
use std::path::Path;

/// Asks the poet for a poem about `topic`, answers Haiku and Warm in the window, and waits
/// for the session to complete with those answers.
async fn write_a_poem(app: &App, topic: &str) -> Result<(), Failure> {
    app.start_session("poet", &format!("Write a poem about {topic}")).await?;
    let card = app.find(".qcard-pending", &format!("Which style should the poem about {topic} take?")).await?;
    app.choose(&card, "Haiku").await?;
    app.choose(&card, "Warm").await?;
    card.find(Locator::XPath(".//button[@type='submit']")).await?.click().await?;
    app.find(".qcard-resolved", "Haiku").await?;
    app.find("li, p, div", &format!("Done: a haiku poem about {topic}, warm in tone.")).await?;
    app.find(".qcard-resolved .resumed", "").await?;
    let text = app.text().await?;
    assert!(text.contains("Completed") || text.contains("completed"), "{text}");
    Ok(())
}

#[tokio::test]
async fn the_demo_agent_asks_then_resumes_and_completes_with_the_answer() -> Result<(), Failure> {
    let home = Home::new()?;
    let app = App::launch(&home).await?;
    app.find("h1", "Inbox").await?;
    write_a_poem(&app, "the sea").await?;
    app.screenshot(&beckon_e2e::screenshot_path("app-session.png")).await?;
    let written: Vec<_> = walk(&home.data_dir().join("workspaces"));
    assert!(written.iter().any(|p| p.ends_with("poems/the-sea.md")), "{written:?}");
    app.quit().await
}

#[tokio::test]
async fn with_no_session_bus_at_all_the_app_starts_and_the_loop_completes() -> Result<(), Failure> {
    let home = Home::new()?;
    // No notifications, no tray host, no single-instance name: the window still works.
    let app = App::launch_without_bus(&home).await?;
    app.find("h1", "Inbox").await?;
    write_a_poem(&app, "silence").await?;
    app.quit().await
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                out.extend(walk(&path));
            } else {
                out.push(path);
            }
        }
    }
    out
}

#[tokio::test]
async fn a_pending_question_is_on_screen_after_quitting_and_starting_again() -> Result<(), Failure> {
    let home = Home::new()?;
    let app = App::launch(&home).await?;
    app.start_session("poet", "a poem about lighthouses").await?;
    app.find(".qcard-pending", "Which style should the poem about lighthouses take?").await?;
    app.quit().await?;
    // Nothing runs while the question waits, so the card below can only come from the database.
    let app = App::launch(&home).await?;
    let card = app.find(".inbox-view .qcard-pending", "Which style should the poem about lighthouses take?").await?;
    assert!(card.text().await?.contains("poet"), "who asks is shown");
    app.quit().await
}

#[tokio::test]
async fn hostile_question_text_shows_literally() -> Result<(), Failure> {
    let home = Home::new()?;
    let hostile = "<img src=x onerror=alert(1)>";
    let script = json!({"turns": [
        {"text": "<script>alert(2)</script>", "tool_calls": [{"name": "ask_user_question", "input": {"questions": [
            {"question": hostile, "header": "<b>x</b>", "multiSelect": false,
             "options": [{"label": "<i>yes</i>", "description": "<a href=javascript:alert(3)>go</a>"}, {"label": "no"}]}
        ]}}]}
    ]});
    home.scripted_agent("hostile", &script)?;
    let app = App::launch(&home).await?;
    app.start_session("hostile", "hello").await?;
    let card = app.find(".qcard-pending", hostile).await?;
    let text = card.text().await?;
    // The header chip is shown in capitals, so compare without case.
    assert!(text.contains("<i>yes</i>") && text.to_lowercase().contains("<b>x</b>"), "{text}");
    let injected = app.eval("return document.querySelectorAll('.qcard img, .qcard i, .qcard b, .qcard a[href^=\"javascript\"], script:not([src])').length").await?;
    assert_eq!(injected, json!(0), "agent text is never HTML");
    assert!(app.client.get_alert_text().await.is_err(), "no script ran");
    app.find("li, p, div", "<script>alert(2)</script>").await?;
    app.quit().await
}
