//! The README's picture of Beckon's Slack message, drawn from what the Slack channel really
//! posts: a question is posted to the fake Slack, its blocks (and then the blocks it is updated
//! to once answered) are drawn as a Slack-like page, and Debian's Chromium takes the picture.
//! It lands under `target/screenshots/`, or in `docs/screenshots/` when
//! `BECKON_UPDATE_SCREENSHOTS=1` asks for the README's own to be redrawn.

use std::path::{Path, PathBuf};
use std::process::Command;

use beckon_channels::slack::{Slack, SlackConfig};
use beckon_channels::{Channel, Posting, Settled};
use beckon_core::{AnsweredVia, QuestionRequest, RequestId};
use beckon_store::QuestionStatus;
use beckon_testkit::fake_slack::{APP_TOKEN, BOT_TOKEN, CHANNEL, FakeSlack};
use serde_json::json;

use crate::support::block_kit;

fn screenshot_path(name: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let folder = if std::env::var_os("BECKON_UPDATE_SCREENSHOTS").is_some_and(|v| v == "1") {
        root.join("docs/screenshots")
    } else {
        root.join("target/screenshots")
    };
    std::fs::create_dir_all(&folder).unwrap();
    folder.join(name)
}

#[tokio::test]
async fn the_slack_message_is_drawn_from_the_blocks_beckon_posts() {
    let fake = FakeSlack::start().await;
    let slack = Slack::new(
        SlackConfig {
            api_base: fake.api_base(),
            ..SlackConfig::new(APP_TOKEN, BOT_TOKEN, Some("U0ADA".into()), Some(CHANNEL.into()))
        },
        reqwest::Client::new(),
    );
    let request = QuestionRequest::parse(&json!({"questions": [{
        "question": "Which database should the shop's order service use?",
        "header": "Database",
        "options": [
            {"label": "Postgres", "description": "Shared, managed, backed up nightly"},
            {"label": "SQLite", "description": "Embedded, one file beside the service"}
        ]
    }]}))
    .unwrap();
    let posting = Posting {
        request_id: RequestId::from_uuid(uuid::Uuid::from_u128(0x0197_b1c2_0000_7000_8000_0000_0000_0001)),
        asker: "research › planner".into(),
        request,
        created_at_ms: 1_764_000_000_000,
        to: None,
    };
    let message = slack.post(&posting).await.unwrap();
    let asked = fake.messages()[0].blocks.clone();
    let settled = Settled {
        status: QuestionStatus::Answered,
        summary: "SQLite (“one file is all we need for now”)".into(),
        via: Some(AnsweredVia::Slack),
        by: Some("ada".into()),
    };
    slack.settle(&message, &posting, &settled).await.unwrap();
    let answered = fake.messages()[0].blocks.clone();

    let page = block_kit::page(
        "agents",
        &[("When the question is asked", &asked, "9:41 AM"), ("Once it is answered (anywhere)", &answered, "9:41 AM")],
    );
    for shown in ["research › planner", "Which database should the shop", "Postgres", "SQLite", "Other…", "Skip"] {
        assert!(page.contains(shown), "the picture shows {shown:?}");
    }
    assert!(page.contains("ada"), "the answered message names who answered");

    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("slack-message.html");
    std::fs::write(&html, &page).unwrap();
    let picture = screenshot_path("slack-message.png");
    let _ = std::fs::remove_file(&picture);
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    let status = Command::new(&chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run"])
        .args(["--disable-background-networking", "--disable-component-update", "--disable-sync"])
        .arg(format!("--user-data-dir={}", dir.path().join("profile").display()))
        .arg("--window-size=760,520")
        .arg(format!("--screenshot={}", picture.display()))
        .arg(format!("file://{}", html.display()))
        .output()
        .unwrap_or_else(|err| panic!("{chromium} cannot run ({err}): scripts/install-deps installs it"));
    assert!(status.status.success(), "chromium failed: {}", String::from_utf8_lossy(&status.stderr));
    let size = std::fs::metadata(&picture).map(|m| m.len()).unwrap_or(0);
    assert!(size > 10_000, "a picture was taken ({size} bytes at {})", picture.display());
}
