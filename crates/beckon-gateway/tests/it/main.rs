//! The gateway over real loopback HTTP, the local socket and MCP: every route and its errors,
//! hostile requests, connection limits, tokens, notices, and the team server's sign-in, window
//! and audiences. One test binary; `served` starts a gateway on a runtime of its own.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod served;

mod approvals;
mod connections;
mod hostile_http;
mod http;
mod http_reference;
#[cfg(unix)]
mod local_socket;
mod mcp;
mod notices;
mod open_requests;
mod sign_in;
mod stale_discovery;
mod team_app_sign_in;
mod team_audiences;
mod team_inbox_client;
mod team_sign_in;
mod team_window;
mod tokens;
