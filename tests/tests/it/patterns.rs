//! An agent's pattern for a free-form answer cannot freeze the real window: the WebView never
//! runs it (its regular expressions backtrack), and Beckon checks it in linear time on submit.

use std::time::Duration;

use beckon_e2e::{App, Failure, Home};
use serde_json::{Value, json};

const QUESTION: &str = "Which build tag?";

/// An agent whose free-form question has a pattern that backtracks exponentially on a string
/// of a's that does not end in b.
fn tagger() -> Value {
    json!({"turns": [
        {"tool_calls": [{"name": "ask_user_question", "input": {"questions": [
            {"question": QUESTION, "header": "Tag", "schema": {"type": "string", "maxLength": 100, "pattern": "^(a+)+b$"}}
        ]}}]},
        {"text": "Tagged: {{answer:0}}."}
    ]})
}

#[tokio::test]
async fn a_catastrophic_pattern_does_not_freeze_the_window() -> Result<(), Failure> {
    let home = Home::new()?;
    home.scripted_agent("tagger", &tagger())?;
    let app = App::launch(&home).await?;
    app.start_session("tagger", "tag it").await?;
    let card = app.find(".qcard-pending", QUESTION).await?;
    let input = card.find(fantoccini::Locator::Css("input")).await?;
    input.send_keys(&format!("{}!", "a".repeat(40))).await?;
    // A window stuck in the pattern would not answer this.
    let answered = tokio::time::timeout(Duration::from_secs(10), app.eval("return 1 + 1")).await;
    assert!(matches!(answered, Ok(Ok(ref two)) if two == &json!(2)), "the window stopped answering: {answered:?}");
    card.find(fantoccini::Locator::Css("button[type=submit]")).await?.click().await?;
    // Beckon's own check refuses the text and says why, beside the field.
    app.find(".qcard-pending .field-error", "pattern").await?;
    input.clear().await?;
    input.send_keys("aaab").await?;
    card.find(fantoccini::Locator::Css("button[type=submit]")).await?.click().await?;
    app.find("li, p, div", "Tagged: aaab.").await?;
    app.quit().await
}
