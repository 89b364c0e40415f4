//! `/mcp` sits behind the same guard as the REST API. (The MCP protocol itself is driven by the
//! official Python SDK in beckon-cli's `mcp_python` tests.)

use beckon_gateway::{GatewayConfig, MCP_PATH, ROUTES};
use beckon_runtime::{Beckon, RuntimeConfig, StartOptions};
use reqwest::StatusCode;
use serde_json::json;

fn initialize() -> serde_json::Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
}

#[tokio::test]
async fn mcp_needs_the_token_a_loopback_host_and_no_origin() {
    let dir = tempfile::tempdir().unwrap();
    let beckon = Beckon::start(RuntimeConfig::new(dir.path()), StartOptions::default()).await.unwrap();
    let mut config = GatewayConfig::new(dir.path());
    config.port = 0;
    let gateway = beckon_gateway::start(beckon.clone(), config).await.unwrap();
    let url = format!("{}{MCP_PATH}", gateway.url);
    let http = reqwest::Client::new();
    let post = || {
        http.post(&url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(initialize().to_string())
    };
    assert!(!ROUTES.iter().any(|(_, path)| *path == MCP_PATH), "MCP is not a REST route");

    assert_eq!(post().send().await.unwrap().status(), StatusCode::UNAUTHORIZED);
    assert_eq!(http.get(&url).send().await.unwrap().status(), StatusCode::UNAUTHORIZED);
    assert_eq!(http.delete(&url).send().await.unwrap().status(), StatusCode::UNAUTHORIZED);
    let rebinding = post().bearer_auth(&gateway.token).header("host", "evil.example").send().await.unwrap();
    assert_eq!(rebinding.status(), StatusCode::FORBIDDEN);
    let page = post().bearer_auth(&gateway.token).header("origin", "https://evil.example").send().await.unwrap();
    assert_eq!(page.status(), StatusCode::FORBIDDEN);

    let response = post().bearer_auth(&gateway.token).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let session = response.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    let body = response.text().await.unwrap();
    assert!(body.contains(r#""name":"beckon""#) && body.contains("get_answer"), "{body}");

    let ended = http
        .delete(&url)
        .bearer_auth(&gateway.token)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-06-18")
        .send()
        .await
        .unwrap();
    assert_eq!(ended.status(), StatusCode::NO_CONTENT, "ending a session says 204, as clients expect");
    gateway.stop();
}
