//! `beckon mcp`: an MCP server on stdin/stdout for clients that launch their servers (Claude
//! Code, editors). It holds no state: every call goes to the running Beckon through its gateway,
//! found afresh each time.
//!
//! Unlike the other commands it starts even when Beckon is not running — a client launches it
//! once per session, and an exit here would take the tools away until the client restarts —
//! and reports "not running" as each tool call's error instead.

use beckon_cli::cli::Connection;
use beckon_cli::error::Exit;
use beckon_gateway::mcp::{McpServer, Remote};
use rmcp::ServiceExt;

use crate::error::{ServerError, ServerResult};

/// Runs `beckon mcp` until the client closes stdin.
pub async fn run(connection: &Connection) -> ServerResult<Exit> {
    let locator = connection.locator();
    if let Err(err) = locator.locate() {
        tracing::warn!("{err}; tool calls will fail until it runs");
    }
    // One process serves one client session: its questions are grouped under one key.
    let key = format!("stdio-{}-{}", std::process::id(), beckon_client::now_ms());
    let server = McpServer::new(Remote::new(locator)?).with_session_key(key);
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|err| ServerError::Io(format!("the MCP client did not complete the handshake: {err}")))?;
    running.waiting().await.map_err(|err| ServerError::Io(format!("the MCP server stopped: {err}")))?;
    Ok(Exit::Success)
}
