//! `beckon://` links end to end: a second launch hands its link to the running app and
//! exits; a cold start with a link opens there; a link only ever navigates.

use beckon_e2e::{App, Bus, Failure, Home};
use serde_json::{Value, json};

const QUESTION: &str = "Rotate the staging keys tonight?";

fn rotator() -> Value {
    json!({"turns": [
        {"tool_calls": [{"name": "ask_user_question", "input": {"questions": [
            {"question": QUESTION, "header": "Keys", "options": [{"label": "Yes"}, {"label": "No"}]}
        ]}}]},
        {"text": "Rotation: {{answer:0}}."}
    ]})
}

async fn launch_with_question() -> Result<(Home, App, String), Failure> {
    let home = Home::new()?;
    home.scripted_agent("rotator", &rotator())?;
    let app = App::launch(&home).await?;
    app.start_session("rotator", "keys").await?;
    let question = app.pending_question_id(QUESTION).await?;
    Ok((home, app, question))
}

/// Opens `link` with a second launch, which must hand it over and exit at once, successfully.
async fn open(app: &App, home: &Home, link: &str) -> Result<(), Failure> {
    let status = app.open_link(home, link).await?;
    assert!(status.success(), "the second launch with {link} exited with {status}");
    Ok(())
}

#[tokio::test]
async fn a_second_launch_with_a_link_brings_the_running_app_to_the_question() -> Result<(), Failure> {
    let (home, app, question) = launch_with_question().await?;
    app.click("button", "New chat").await?;
    app.wait_for_place("#/new").await?;
    open(&app, &home, &format!("beckon://question/{question}")).await?;
    app.wait_for_place(&format!("#/question/{question}")).await?;
    app.find(&format!(".qcard-highlighted[data-request-id='{question}']"), QUESTION).await?;
    open(&app, &home, "beckon://inbox").await?;
    app.wait_for_place("#/inbox").await?;
    app.quit().await
}

#[tokio::test]
async fn links_never_answer_and_bad_links_say_what_is_wrong() -> Result<(), Failure> {
    let (home, app, question) = launch_with_question().await?;
    app.click("button", "New chat").await?;
    open(&app, &home, &format!("beckon://question/{question}?answer=Yes&decline=1#submit")).await?;
    app.wait_for_place(&format!("#/question/{question}")).await?;
    for (link, message) in [
        (format!("beckon://question/{question}/answer/Yes"), "is not a link Beckon understands"),
        ("beckon://question/not-a-question".to_owned(), "does not name a question"),
        ("beckon://question/0190f1d2-7a3b-7c4d-8e5f-6a7b8c9d0e1f".to_owned(), "There is no question"),
        (format!("beckon://inbox?{}", "x".repeat(4000)), "bytes long"),
    ] {
        open(&app, &home, &link).await?;
        app.find(".banner[role=alert]", message).await?;
    }
    // The question still waits for the person: nothing above answered or declined it.
    app.click(".nav-item", "Inbox").await?;
    let card = app.find(&format!(".qcard-pending[data-request-id='{question}']"), QUESTION).await?;
    assert_eq!(card.attr("data-status").await?.as_deref(), Some("pending"));
    assert!(!app.text().await?.contains("Rotation:"), "the session did not resume");
    app.quit().await
}

#[tokio::test]
async fn a_cold_start_with_a_link_opens_at_the_question() -> Result<(), Failure> {
    let (home, app, question) = launch_with_question().await?;
    app.quit().await?;
    let app = App::launch_with_link(&home, Bus::start()?, &format!("beckon://question/{question}")).await?;
    app.wait_for_place(&format!("#/question/{question}")).await?;
    app.find(&format!(".qcard-highlighted[data-request-id='{question}']"), QUESTION).await?;
    app.quit().await
}

/// Presses `keys` on the keyboard, wherever focus is, as a person typing would.
async fn type_keys(app: &App, keys: &[char]) -> Result<(), Failure> {
    use fantoccini::actions::{InputSource, KeyAction, KeyActions};
    let mut actions = KeyActions::new("keyboard".into());
    for &key in keys {
        actions = actions.then(KeyAction::Down { value: key }).then(KeyAction::Up { value: key });
    }
    app.client.perform_actions(actions).await?;
    Ok(())
}

/// WebDriver's code for the Enter key.
const ENTER: char = '\u{E007}';

#[tokio::test]
async fn a_link_never_puts_the_keys_being_typed_into_its_question() -> Result<(), Failure> {
    let (home, app, question) = launch_with_question().await?;
    app.eval("document.activeElement instanceof HTMLElement && document.activeElement.blur(); return null").await?;
    open(&app, &home, &format!("beckon://question/{question}")).await?;
    app.find(&format!(".qcard-highlighted[data-request-id='{question}']"), QUESTION).await?;
    let focus = app.eval("return document.activeElement?.closest('article')?.dataset.requestId ?? null").await?;
    assert_eq!(focus, Value::Null, "the link put focus into the card");
    // The person was typing elsewhere: a digit and Enter reach the window the link raised.
    type_keys(&app, &['1', ENTER]).await?;
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    app.find(&format!(".qcard-pending[data-request-id='{question}']"), QUESTION).await?;
    assert!(!app.text().await?.contains("Rotation:"), "the keys answered the question");
    // Once the person clicks into the card, the same keys answer it.
    app.find(&format!(".qcard-pending[data-request-id='{question}'] .qitem [id$='-q']"), QUESTION)
        .await?
        .click()
        .await?;
    type_keys(&app, &['1', ENTER]).await?;
    app.find("li, p, div", "Rotation: Yes.").await?;
    app.quit().await
}
