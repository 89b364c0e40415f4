//! The tray end to end: a StatusNotifierWatcher on the test bus sees the app's item register;
//! its label counts the agents waiting, its menu lists the question, and a menu click opens
//! the window there.

use beckon_e2e::{App, Bus, Failure, Home, TrayWatcher, eventually};
use fantoccini::Locator;
use serde_json::json;

#[tokio::test]
async fn the_tray_counts_waiting_agents_lists_the_question_and_opens_it() -> Result<(), Failure> {
    let home = Home::new()?;
    home.scripted_agent(
        "librarian",
        &json!({"turns": [
            {"tool_calls": [{"name": "ask_user_question", "input": {"questions": [
                {"question": "Archive the 2019 reports?", "header": "Archive", "options": [{"label": "Yes"}, {"label": "No"}]}
            ]}}]},
            {"text": "Archive: {{answer:0}}."}
        ]}),
    )?;
    let bus = Bus::start()?;
    let watcher = TrayWatcher::start(&bus).await?;
    let app = App::launch_on(&home, bus).await?;
    let item = watcher.item().await?;
    let bus = app.bus()?;
    eventually("the tray says nothing waits", || (item.label(bus).ok()? == "Beckon").then_some(())).await?;

    app.start_session("librarian", "tidy up").await?;
    let question = app.pending_question_id("Archive the 2019 reports?").await?;
    eventually("the tray counts one agent waiting", || (item.label(bus).ok()? == "1 agent waiting").then_some(()))
        .await?;
    let mut seen = Vec::new();
    let entry = eventually("the menu lists the question", || {
        seen = item.menu(bus).ok()?;
        seen.iter().find(|entry| entry.label == "librarian: Archive").cloned()
    })
    .await
    .map_err(|err| format!("{err}; the menu: {seen:?}"))?;
    let labels: Vec<String> = item.menu(bus)?.into_iter().map(|entry| entry.label).collect();
    assert!(labels.iter().any(|l| l == "Open Inbox") && labels.iter().any(|l| l == "Quit Beckon"), "{labels:?}");

    app.click("button", "New chat").await?;
    app.wait_for_place("#/new").await?;
    item.click(bus, entry.id)?;
    app.wait_for_place(&format!("#/question/{question}")).await?;
    let card = app.find(&format!(".qcard-highlighted[data-request-id='{question}']"), "").await?;
    card.find(Locator::XPath(".//label[contains(., 'Yes')]")).await?.click().await?;
    card.find(Locator::XPath(".//button[@type='submit']")).await?.click().await?;
    eventually("the tray says nothing waits again", || (item.label(bus).ok()? == "Beckon").then_some(())).await?;
    let labels: Vec<String> = item.menu(bus)?.into_iter().map(|entry| entry.label).collect();
    assert!(labels.iter().any(|l| l == "Nothing is waiting"), "{labels:?}");
    app.quit().await
}
