//! Agents' Markdown in the real window: a message and option previews render as Markdown, the
//! preview of the option the person is on shows beside the options and stays in the resolved
//! card, and the hostile Markdown corpus (tests/hostile/markdown.json) creates no element that
//! runs or loads anything and no link but http(s) and mailto.

use beckon_e2e::{App, Failure, Home};
use fantoccini::Locator;
use serde_json::{Value, json};

const QUESTION: &str = "Which release page layout?";
const FORBIDDEN: &str = "img, script, iframe, object, embed, style, form, input, svg, video, audio, link, meta, base";

/// The corpus's Markdown texts, from its specs (strings, arrays, `repeat`).
fn corpus() -> Vec<(String, String)> {
    fn spec(value: &Value) -> String {
        match value {
            Value::String(text) => text.clone(),
            Value::Array(parts) => parts.iter().map(spec).collect(),
            Value::Object(map) if map.contains_key("repeat") => {
                spec(&map["repeat"]).repeat(map["times"].as_u64().unwrap() as usize)
            }
            Value::Object(map) => spec(&map["concat"]),
            other => panic!("not a spec: {other}"),
        }
    }
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("hostile/markdown.json");
    let corpus: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    corpus["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|case| (case["name"].as_str().unwrap().to_owned(), spec(&case["markdown"])))
        .collect()
}

/// An agent whose message carries every corpus text and whose question has previews: a table
/// for "Table", for "Hostile" the corpus texts a preview's 8 KiB holds.
fn reviewer(hostile: &str, short_hostile: &str) -> Value {
    json!({"turns": [
        {"text": format!("# Release review\n\n{hostile}"), "tool_calls": [{"name": "ask_user_question", "input": {"questions": [
            {"question": QUESTION, "header": "Layout", "multiSelect": false, "options": [
                {"label": "Table", "description": "One row per change", "preview": "| Change | Area |\n|---|---|\n| Tray fix | UI |"},
                {"label": "Hostile", "description": "Everything at once", "preview": short_hostile},
                {"label": "Plain", "description": "No preview"}
            ]}
        ]}}]},
        {"text": "Chose **{{answer:0}}**."}
    ]})
}

async fn count(app: &App, css: &str) -> Result<u64, Failure> {
    let script = format!("return document.querySelectorAll({}).length", json!(css));
    Ok(app.eval(&script).await?.as_u64().unwrap_or(u64::MAX))
}

/// Every link inside rendered Markdown, by address.
async fn markdown_links(app: &App) -> Result<Vec<String>, Failure> {
    let found = app.eval("return [...document.querySelectorAll('.md a')].map((a) => a.getAttribute('href'))").await?;
    Ok(serde_json::from_value(found)?)
}

#[tokio::test]
async fn previews_and_messages_render_as_markdown_and_hostile_markdown_is_inert() -> Result<(), Failure> {
    let texts: Vec<String> = corpus().into_iter().map(|(_, text)| text).collect();
    let hostile = texts.join("\n\n---\n\n");
    let short: Vec<String> = texts.into_iter().filter(|text| text.len() < 1000).collect();
    let home = Home::new()?;
    home.scripted_agent("reviewer", &reviewer(&hostile, &short.join("\n\n---\n\n")))?;
    let app = App::launch(&home).await?;
    app.start_session("reviewer", "review the release page").await?;
    let card = app.find(".qcard-pending", QUESTION).await?;

    // The message is Markdown: a heading, and the corpus inert within it.
    app.find(".msg-assistant .md h1", "Release review").await?;
    assert_eq!(
        count(&app, &format!(".md :is({FORBIDDEN})")).await?,
        0,
        "no element from the agent's Markdown runs or loads"
    );
    for href in markdown_links(&app).await? {
        assert!(href.starts_with("https://") || href.starts_with("http://") || href.starts_with("mailto:"), "{href}");
    }
    assert!(app.text().await?.contains("<script>alert(1)</script>"), "raw HTML shows as text");

    // The preview of the option the person is on, beside the options.
    card.find(Locator::XPath(".//label[contains(., 'Table')]")).await?.click().await?;
    let preview = app.find(".qcard-pending figure.option-preview", "Tray fix").await?;
    assert_eq!(preview.attr("aria-label").await?.as_deref(), Some("Preview of Table"));
    preview.find(Locator::Css("table td")).await?;
    card.find(Locator::XPath(".//label[contains(., 'Hostile')]")).await?.click().await?;
    app.find(".qcard-pending figure.option-preview", "[image: beacon]").await?;
    assert_eq!(count(&app, &format!(".option-preview :is({FORBIDDEN})")).await?, 0);

    // Chosen and sent: the resolved card keeps the chosen option's preview.
    card.find(Locator::XPath(".//label[contains(., 'Table')]")).await?.click().await?;
    card.find(Locator::Css("button[type=submit]")).await?.click().await?;
    app.find(".msg-assistant .md strong", "Table").await?;
    app.find("figure.option-preview", "Tray fix").await?;
    app.quit().await
}
