//! The MCP server: `ask_user_question` and `get_answer`, written against [`ServerHandler`] by
//! hand so the tool schemas are exactly ours.

use std::time::Duration;

use beckon_core::question::tool_error_text;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

use super::backend::{Backend, BackendError, McpAsk, QuestionState};
use super::tools::{self, APPROVE, ASK, GET_ANSWER};
use super::waiting::{Progress, decision_result, tool_result, wait_for_person};

/// The agent name used when a client gives none that can be used.
const DEFAULT_AGENT: &str = "mcp-client";
/// Longest agent name and session key the runtime accepts.
const AGENT_MAX: usize = 64;
const KEY_MAX: usize = 200;

const INSTRUCTIONS: &str = "Beckon puts your questions to the person you work for, in their desktop inbox, and \
brings back their answer. Call ask_user_question when you need their decision to go on (several valid approaches, \
an ambiguous request, anything risky); it takes the same input as Claude Code's AskUserQuestion and returns \
{\"outcome\": \"answered\", \"answers\": {\"<question>\": \"<label>\"}} or a declined, expired or cancelled outcome \
with a message saying what to do. People may take minutes or days to answer: when a call returns outcome \
\"pending\", call get_answer with its request_id to keep waiting instead of asking again.";

/// The agent name for an MCP client that names itself `client`: a known agent's own name
/// (`codex-mcp-client` asks as `codex`), else the client's name made fit for the inbox.
fn agent_name(client: &str) -> String {
    match beckon_agents::Agent::from_mcp_client(client) {
        Some(agent) => agent.name().to_owned(),
        None => Some(sanitize(client, AGENT_MAX))
            .filter(|name| !name.is_empty())
            .unwrap_or_else(|| DEFAULT_AGENT.to_owned()),
    }
}

/// Beckon's MCP server over a [`Backend`].
#[derive(Debug, Clone)]
pub struct McpServer<B> {
    backend: B,
    session_key: Option<String>,
}

impl<B: Backend> McpServer<B> {
    /// A server whose questions are grouped by the client's MCP session (streamable HTTP).
    pub fn new(backend: B) -> McpServer<B> {
        McpServer { backend, session_key: None }
    }

    /// A server for one connection (stdio) whose questions are grouped under `key`.
    pub fn with_session_key(mut self, key: impl Into<String>) -> McpServer<B> {
        self.session_key = Some(key.into());
        self
    }

    /// The key grouping this call's questions: the streamable HTTP session id, else ours.
    fn session_key(&self, context: &RequestContext<RoleServer>) -> Option<String> {
        let from_http = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.headers.get("mcp-session-id"))
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        from_http.or_else(|| self.session_key.clone()).map(|key| sanitize(&key, KEY_MAX)).filter(|key| !key.is_empty())
    }

    /// Who asks: the client's name, or for an agent Beckon knows the name its hooks give, so
    /// that its questions and its approvals show under one name.
    fn agent(context: &RequestContext<RoleServer>) -> String {
        context.client_info().map(|client| agent_name(&client.name)).unwrap_or_else(|| DEFAULT_AGENT.to_owned())
    }

    /// Puts a checked request to the person, in this client's session when it is free.
    async fn put(
        &self,
        request: beckon_core::QuestionRequest,
        context: &RequestContext<RoleServer>,
    ) -> Result<beckon_core::RequestId, BackendError> {
        let ask = McpAsk { agent: Self::agent(context), session_key: self.session_key(context), request };
        match self.backend.ask(ask.clone()).await {
            // One pending question per session: a second one while the first waits gets its own.
            Err(BackendError::SessionBusy(_)) if ask.session_key.is_some() => {
                self.backend.ask(McpAsk { session_key: None, ..ask }).await
            }
            other => other,
        }
    }

    async fn ask(&self, request: CallToolRequestParams, context: RequestContext<RoleServer>) -> CallToolResult {
        let args = match tools::read_ask(request.arguments) {
            Ok(args) => args,
            Err(problems) => return tool_error(tool_error_text(&problems)),
        };
        let asked = self.put(args.request.clone(), &context).await;
        let id = match asked {
            Ok(id) => id,
            Err(BackendError::Invalid(problems)) => return tool_error(tool_error_text(&problems)),
            Err(err) => return tool_error(format!("Beckon could not put the question to the person: {err}")),
        };
        tracing::info!(request_id = %id, "MCP client asked");
        let state = QuestionState { id, request: args.request, outcome: None };
        self.wait(state, args.wait, &context).await
    }

    async fn approve(&self, request: CallToolRequestParams, context: RequestContext<RoleServer>) -> CallToolResult {
        let asked = match tools::read_approve(request.arguments) {
            Ok(asked) => asked,
            Err(problems) => return tool_error(tool_error_text(&problems)),
        };
        let id = match self.put(asked.clone(), &context).await {
            Ok(id) => id,
            Err(err) => return tool_error(format!("Beckon could not put the tool call to the person: {err}")),
        };
        tracing::info!(request_id = %id, "MCP client asks for approval");
        let progress = context.meta.get_progress_token().map(|token| Progress { peer: context.peer.clone(), token });
        let state = QuestionState { id, request: asked, outcome: None };
        match wait_for_person(&self.backend, state, tools::APPROVE_WAIT, progress.as_ref(), &context.ct).await {
            Ok(state) => {
                if state.outcome.is_none() {
                    let reason = format!("not answered within {} s", tools::APPROVE_WAIT.as_secs());
                    if let Err(err) = self.backend.withdraw(id, &reason).await {
                        tracing::warn!(request_id = %id, %err, "cannot withdraw an unanswered approval");
                    }
                }
                decision_result(&state)
            }
            Err(err) => tool_error(format!("Beckon stopped waiting for the decision on {id}: {err}")),
        }
    }

    async fn get_answer(&self, request: CallToolRequestParams, context: RequestContext<RoleServer>) -> CallToolResult {
        let args = match tools::read_get_answer(request.arguments) {
            Ok(args) => args,
            Err(problems) => return tool_error(tools::get_answer_error_text(&problems)),
        };
        let state = match self.backend.question(args.request_id).await {
            Ok(state) => state,
            Err(BackendError::NotFound(_)) => {
                return tool_error(format!(
                    "No question has request_id {}; pass the request_id from a pending ask_user_question result.",
                    args.request_id
                ));
            }
            Err(err) => return tool_error(format!("Beckon could not look the question up: {err}")),
        };
        self.wait(state, args.wait, &context).await
    }

    async fn wait(&self, state: QuestionState, wait: Duration, context: &RequestContext<RoleServer>) -> CallToolResult {
        let progress = context.meta.get_progress_token().map(|token| Progress { peer: context.peer.clone(), token });
        let id = state.id;
        match wait_for_person(&self.backend, state, wait, progress.as_ref(), &context.ct).await {
            Ok(state) => tool_result(&state),
            Err(err) => tool_error(format!(
                "Beckon stopped waiting for the answer to {id}: {err}. The question may still be answered; call \
                 get_answer with request_id \"{id}\" later."
            )),
        }
    }
}

fn tool_error(text: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text)])
}

/// Keeps `[A-Za-z0-9._:/-]` (other characters become `-`, runs of them one), at most `max`.
fn sanitize(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max));
    for c in text.trim().chars() {
        let keep = c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '/' | '-');
        if keep {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
        if out.len() >= max {
            break;
        }
    }
    out.trim_matches('-').to_owned()
}

impl<B: Backend> ServerHandler for McpServer<B> {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("beckon", env!("CARGO_PKG_VERSION")).with_title("Beckon"))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![tools::ask_tool(), tools::get_answer_tool(), tools::approve_tool()]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let result = match request.name.as_ref() {
            ASK => self.ask(request, context).await,
            GET_ANSWER => self.get_answer(request, context).await,
            APPROVE => self.approve(request, context).await,
            other => {
                return Err(ErrorData::invalid_params(
                    format!("there is no tool named {other:?}; the tools are {ASK}, {GET_ANSWER} and {APPROVE}"),
                    None,
                ));
            }
        };
        Ok(result.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_keep_only_the_runtimes_alphabet() {
        assert_eq!(sanitize("claude-code", AGENT_MAX), "claude-code");
        assert_eq!(sanitize("  Claude Code (beta) ", AGENT_MAX), "Claude-Code-beta");
        assert_eq!(sanitize("¡¡¡", AGENT_MAX), "");
        assert_eq!(sanitize(&"a".repeat(100), AGENT_MAX).len(), AGENT_MAX);
        assert_eq!(sanitize("mcp/1.0:x_y.z", AGENT_MAX), "mcp/1.0:x_y.z");
    }

    #[test]
    fn a_known_agent_asks_under_the_name_its_hooks_give() {
        assert_eq!(agent_name("codex-mcp-client"), "codex");
        assert_eq!(agent_name("copilot-cli"), "copilot");
        assert_eq!(agent_name("gemini-cli-mcp-client"), "gemini");
        assert_eq!(agent_name("claude-code"), "claude-code");
        assert_eq!(agent_name("opencode"), "opencode");
        assert_eq!(agent_name("My Script"), "My-Script");
        assert_eq!(agent_name("¡¡¡"), DEFAULT_AGENT);
    }
}
