//! Beckon as an MCP server: `ask_user_question` with Claude Code's AskUserQuestion schema, which
//! waits for the person (with progress notifications) and, before a client's timeout, returns a
//! pending result whose request id `get_answer` keeps waiting on.
//!
//! The same [`McpServer`] serves streamable HTTP at the gateway's `/mcp` (behind its guard, on
//! the runtime in this process) and stdio in `beckon mcp` (on the app in another process, through
//! the gateway's HTTP API).

mod backend;
mod in_process;
mod malformed;
mod remote;
mod server;
mod tools;
mod waiting;

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use beckon_runtime::Beckon;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

pub use backend::{Backend, BackendError, McpAsk, QuestionState};
pub use in_process::InProcess;
pub use remote::Remote;
pub use server::McpServer;
pub use tools::{ASK, DEFAULT_WAIT, GET_ANSWER, MAX_WAIT_SECONDS};
pub use waiting::PROGRESS_EVERY;

/// Where the MCP server listens (streamable HTTP: POST, GET and DELETE), behind the same guard
/// as every route.
///
/// It is not in [`ROUTES`](crate::ROUTES): it speaks MCP (JSON-RPC over streamable HTTP,
/// described by the MCP specification), not the REST API the OpenAPI document describes.
pub const MCP_PATH: &str = "/mcp";

/// The route at [`MCP_PATH`] (POST, GET and DELETE): streamable HTTP on the
/// runtime in this process, with at most `max_sessions` sessions open; `stop` ends its sessions
/// and streams.
pub(crate) fn routes<S: Clone + Send + Sync + 'static>(
    beckon: Beckon,
    body_limit: usize,
    max_sessions: usize,
    stop: CancellationToken,
) -> Router<S> {
    let backend = InProcess::new(beckon);
    let config =
        StreamableHttpServerConfig::default().with_cancellation_token(stop).with_max_request_body_bytes(body_limit);
    let sessions = Arc::new(LocalSessionManager::default());
    let service = StreamableHttpService::new(move || Ok(McpServer::new(backend.clone())), sessions.clone(), config);
    let bound = SessionBound { sessions, max: max_sessions };
    Router::new()
        .route_service(MCP_PATH, service)
        .layer(axum::middleware::from_fn(ended_session_is_no_content))
        .layer(axum::middleware::from_fn_with_state(bound, sessions_within_bound))
        .layer(axum::middleware::from_fn(malformed::as_json_rpc_error))
}

/// How many MCP sessions may be open, and where they are.
#[derive(Clone)]
struct SessionBound {
    sessions: Arc<LocalSessionManager>,
    max: usize,
}

/// A request that would open one more session (a POST without `Mcp-Session-Id`) is refused
/// with 429 while `max` are open; requests within a session go on.
async fn sessions_within_bound(State(bound): State<SessionBound>, request: Request, next: Next) -> Response {
    let opens_one = request.method() == Method::POST && !request.headers().contains_key("mcp-session-id");
    if opens_one && bound.sessions.sessions.read().await.len() >= bound.max {
        return crate::error::ApiError::busy(format!(
            "{} MCP sessions are open at once, the most the gateway allows; end one (DELETE with its \
             Mcp-Session-Id) or retry when one has been idle for five minutes",
            bound.max
        ))
        .into_response();
    }
    next.run(request).await
}

/// Ending a session answers 204 rather than the SDK's 202: clients (the Python SDK among them)
/// take anything but 200 or 204 as a failed termination.
async fn ended_session_is_no_content(request: Request, next: Next) -> Response {
    let delete = request.method() == Method::DELETE;
    let response = next.run(request).await;
    if delete && response.status() == StatusCode::ACCEPTED {
        let (mut parts, _) = response.into_parts();
        parts.status = StatusCode::NO_CONTENT;
        parts.headers.remove(axum::http::header::CONTENT_TYPE);
        parts.headers.remove(axum::http::header::CONTENT_LENGTH);
        return Response::from_parts(parts, Body::empty());
    }
    response
}
