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
use axum::extract::Request;
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
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

/// The route at [`MCP_PATH`](crate::MCP_PATH) (POST, GET and DELETE): streamable HTTP on the
/// runtime in this process; `stop` ends its sessions and streams.
pub(crate) fn routes<S: Clone + Send + Sync + 'static>(
    beckon: Beckon,
    body_limit: usize,
    stop: CancellationToken,
) -> Router<S> {
    let backend = InProcess::new(beckon);
    let config =
        StreamableHttpServerConfig::default().with_cancellation_token(stop).with_max_request_body_bytes(body_limit);
    let service = StreamableHttpService::new(
        move || Ok(McpServer::new(backend.clone())),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    Router::new()
        .route_service(crate::MCP_PATH, service)
        .layer(axum::middleware::from_fn(ended_session_is_no_content))
        .layer(axum::middleware::from_fn(malformed::as_json_rpc_error))
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
