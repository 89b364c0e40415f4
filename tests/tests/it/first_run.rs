//! The first run end to end: a new data folder opens on the getting-started guide, which gives
//! the real `beckon` path for other agents, shows a test notification through the real
//! notification daemon and hears its button, starts the demo agent, and — once put away with
//! "Got it" — never opens again, though Settings still shows it.

use beckon_e2e::{App, Bus, Failure, Home, Notifications};
use serde_json::Value;

/// What the guide's `beckon` command should be: the one built beside the app, else plain
/// `beckon` (the guide says it was not found).
fn expected_program() -> String {
    let beside = beckon_e2e::app_binary().with_file_name("beckon");
    match beside.canonicalize() {
        Ok(found) if found.is_file() => found.display().to_string(),
        _ => "beckon".to_owned(),
    }
}

#[tokio::test]
async fn a_new_data_folder_opens_on_the_guide_until_it_is_put_away() -> Result<(), Failure> {
    let home = Home::first_run()?;
    let app = App::launch(&home).await?;
    app.find("h1", "Welcome to Beckon").await?;
    app.wait_for_place("#/guide").await?;
    app.find(".guide-intro", "Beckon is an inbox where AI agents ask you questions.").await?;
    app.find(".guide fieldset legend", "Connect your agents").await?;

    let program = expected_program();
    let config = app.find("pre[aria-label='MCP configuration']", "mcpServers").await?.text().await?;
    let config: Value = serde_json::from_str(&config)?;
    assert_eq!(config["mcpServers"]["beckon"]["command"], program.as_str(), "{config}");
    assert_eq!(config["mcpServers"]["beckon"]["args"], serde_json::json!(["mcp"]));
    let ask = app.find("pre[aria-label='beckon ask command']", "ask").await?.text().await?;
    assert!(ask.ends_with(r#" ask "Deploy?" -o Yes -o No"#) && ask.contains(&program), "{ask}");

    app.click(".guide-actions button", "Got it").await?;
    app.find("h1", "Inbox").await?;
    let settings: Value = serde_json::from_str(&std::fs::read_to_string(home.data_dir().join("settings.json"))?)?;
    assert_eq!(settings["guide_dismissed"], true, "{settings}");
    app.quit().await?;

    // The same data folder again: the inbox, and never the guide.
    let app = App::launch(&home).await?;
    app.find("h1", "Inbox").await?;
    app.eval("return new Promise((done) => setTimeout(done, 1000))").await?;
    assert!(!app.text().await?.contains("Welcome to Beckon"), "the guide came back after it was put away");
    assert_ne!(app.eval("return window.location.hash").await?, serde_json::json!("#/guide"));

    // Settings still has it.
    app.click("button[aria-label=Settings]", "").await?;
    app.click(".settings-view button", "Show the getting-started guide").await?;
    app.find("h1", "Welcome to Beckon").await?;
    app.quit().await
}

#[tokio::test]
async fn the_guides_test_notification_reaches_the_daemon_with_its_button_and_the_press_comes_back()
-> Result<(), Failure> {
    let home = Home::first_run()?;
    let mut bus = Bus::start()?;
    bus.start_notification_daemon(&home).await?;
    let notifications = Notifications::record(&bus).await?;
    let app = App::launch_on(&home, bus).await?;
    app.find("h1", "Welcome to Beckon").await?;
    guide_settled(&app).await?;
    app.click(".guide button", "Send a test notification").await?;
    let shown = notifications.wait_for("the test notification", |n| n.summary == "Beckon can reach you").await?;
    assert_eq!(shown.app, "Beckon");
    assert_eq!(
        shown.actions,
        vec![("default".to_owned(), "Open".to_owned()), ("test:pressed".to_owned(), "It works".to_owned())]
    );
    app.find(".guide-test-result [data-result=delivered]", "The notification service showed it").await?;

    // The person presses its button in the daemon: the guide hears it.
    app.bus()?.daemon_action(shown.id.ok_or("no id")?, "test:pressed")?;
    app.find(".guide-test-result [data-result=pressed]", "Your press reached Beckon").await?;
    app.quit().await
}

/// Waits until the guide's parts that load after it (the agents found, the MCP settings with
/// the real path) are on screen: each pushes the buttons below them down, and a click sent
/// while a button moves lands where it was.
async fn guide_settled(app: &App) -> Result<(), Failure> {
    app.find(".guide fieldset.agents[aria-busy=false]", "").await?;
    app.find(".guide", "mcpServers").await?;
    Ok(())
}

#[tokio::test]
async fn without_a_notification_service_the_guide_says_so() -> Result<(), Failure> {
    let home = Home::first_run()?;
    let bus = Bus::start_without_services(&home)?;
    let app = App::launch_on(&home, bus).await?;
    guide_settled(&app).await?;
    app.click(".guide button", "Send a test notification").await?;
    app.find(".guide-test-result [data-result=failed]", "The notification service did not take it").await?;
    app.quit().await
}

#[tokio::test]
async fn the_guide_starts_the_demo_agent() -> Result<(), Failure> {
    let home = Home::first_run()?;
    let app = App::launch(&home).await?;
    guide_settled(&app).await?;
    // The button is disabled until the window knows its agents; a click on it then does nothing.
    app.click(".guide button:enabled", "Try the demo agent").await?;
    app.find(".qcard-pending", "Which style should the poem about the sea take?").await?;
    let place = app.eval("return window.location.hash").await?;
    assert!(place.as_str().is_some_and(|hash| hash.starts_with("#/session/")), "{place}");
    app.quit().await
}
