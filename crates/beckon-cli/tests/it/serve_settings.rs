//! `beckon serve` starts from the settings the window saved on the same data folder: the
//! gateway's port and whether scripts may approve tool calls, as the same person expects of
//! the same Beckon whichever way it runs.

use std::path::Path;
use std::time::Duration;

use beckon_core::PermissionDecision;
use beckon_gateway::{Discovery, GatewayClient, Locator};
use serde_json::json;
use tokio::process::Child;

use crate::support::served;

/// `beckon serve` on `dir` with no port given, and a client once it listens.
async fn serve(dir: &Path) -> (Child, Discovery, GatewayClient) {
    let serve = served::beckon(dir)
        .arg("serve")
        .env_remove("BECKON_GATEWAY_PORT")
        .env_remove("BECKON_SCRIPTS_MAY_APPROVE")
        .spawn()
        .unwrap();
    let found = served::discovered(dir, Duration::from_secs(30)).await;
    let client =
        GatewayClient::new(GatewayClient::http().unwrap(), Locator::new(dir).locate().unwrap(), "serve-settings");
    (serve, found, client)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap().local_addr().unwrap().port()
}

fn approval() -> serde_json::Value {
    json!({"agent": "claude-code", "approval": {"tool_name": "Bash", "input": {"command": "make deploy"}}})
}

#[tokio::test]
async fn serve_listens_where_the_window_saved_and_lets_scripts_approve_when_it_said_so() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut settings = beckon_runtime::Settings::load(dir.path());
    settings
        .update(|file| {
            file.gateway_port = port;
            file.scripts_may_approve = true;
        })
        .unwrap();
    let (_serve, found, client) = serve(dir.path()).await;
    assert_eq!(found.url, format!("http://127.0.0.1:{port}"));
    let asked = client.ask(&approval()).await.unwrap();
    let answered = client.answer(&asked.request_id.to_string(), &["Allow".into()]).await.unwrap();
    assert!(matches!(answered.decision, Some(PermissionDecision::Allow { .. })), "{answered:?}");
}

#[tokio::test]
async fn without_those_settings_serve_keeps_scripts_from_approving() {
    let dir = tempfile::tempdir().unwrap();
    let mut settings = beckon_runtime::Settings::load(dir.path());
    settings.update(|file| file.gateway_port = 0).unwrap();
    let (_serve, found, client) = serve(dir.path()).await;
    assert!(!found.url.ends_with(":7393"), "port 0 from the settings picks a free one: {}", found.url);
    let asked = client.ask(&approval()).await.unwrap();
    let refused = client.answer(&asked.request_id.to_string(), &["Allow".into()]).await.unwrap_err();
    assert!(refused.to_string().contains("BECKON_SCRIPTS_MAY_APPROVE"), "{refused}");
}

#[tokio::test]
async fn serve_refuses_to_start_from_a_channel_setting_the_window_would_refuse() {
    let dir = tempfile::tempdir().unwrap();
    // Written by hand: a channel id where Slack's person belongs, so approvals would go to a
    // channel rather than to the person alone. The window refuses to save it.
    let settings = json!({
        "slack": {"enabled": true, "app_token": "xapp-1-test", "bot_token": "xoxb-test", "person": "C0TEAM",
                  "api_base_url": "http://127.0.0.1:9/api"},
    });
    let file: beckon_runtime::settings::SettingsFile = serde_json::from_value(settings.clone()).unwrap();
    let refused = file.check().expect_err("the window refuses it");
    assert_eq!(refused.first_path(), Some("slack.person"));
    std::fs::write(dir.path().join("settings.json"), settings.to_string()).unwrap();

    let ended = served::output(served::beckon(dir.path()).args(["serve", "--port", "0"])).await;
    let said = served::text(&ended.stderr);
    assert_eq!(ended.status.code(), Some(1), "{said}");
    assert!(said.contains("settings.json holds settings Beckon refuses"), "{said}");
    for problem in &refused {
        assert!(said.contains(&problem.to_string()), "each problem is named at its setting: {said}");
    }
    assert!(Discovery::read(dir.path()).is_err(), "nothing was served");
}
