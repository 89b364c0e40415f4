//! The backend in another process (`beckon mcp`): reaches the running Beckon through the
//! gateway's HTTP API, finding it afresh for every call so a restarted app is picked up. A wait
//! whose connection is lost re-attaches to its question within the time the call waits (see
//! [`beckon_client::client::reattach`]).

use std::time::Duration;

use beckon_api::views::QuestionView;
use beckon_client::client::reattach::{Relocating, Wait};
use beckon_client::client::{ClientError, GatewayClient, Locator};
use beckon_core::{Problems, RequestId};
use beckon_runtime::api::ErrorKind;
use serde_json::json;

use super::backend::{Backend, BackendError, McpAsk, QuestionState};

/// The longest one long-poll is held by the gateway.
const MAX_POLL: Duration = Duration::from_secs(120);

/// Beckon behind its gateway.
#[derive(Debug, Clone)]
pub struct Remote {
    locator: Locator,
}

impl Remote {
    /// A backend that finds the gateway with `locator`.
    pub fn new(locator: Locator) -> Result<Remote, ClientError> {
        Ok(Remote { locator })
    }

    fn client(&self) -> Result<GatewayClient, BackendError> {
        let endpoint = self.locator.locate()?;
        Ok(GatewayClient::connect(endpoint, "beckon-mcp")?)
    }
}

impl From<ClientError> for BackendError {
    fn from(err: ClientError) -> BackendError {
        match &err {
            ClientError::Api { body, .. } => match body.kind {
                ErrorKind::InvalidInput | ErrorKind::InvalidAnswer if !body.problems.is_empty() => {
                    let mut problems = Problems::new();
                    for problem in &body.problems {
                        problems.push(problem.path.clone(), problem.message.clone());
                    }
                    BackendError::Invalid(problems)
                }
                ErrorKind::NotFound => BackendError::NotFound(err.to_string()),
                ErrorKind::WrongState => BackendError::SessionBusy(err.to_string()),
                ErrorKind::Unavailable | ErrorKind::Unauthorized => BackendError::Unavailable(err.to_string()),
                _ => BackendError::Failed(err.to_string()),
            },
            ClientError::InvalidId(_) => BackendError::Invalid(Problems::one("request_id", "is not a request id")),
            ClientError::NotRunning { .. }
            | ClientError::NoToken { .. }
            | ClientError::Discovery { .. }
            | ClientError::Stale { .. }
            | ClientError::Impostor { .. }
            | ClientError::TooLarge { .. }
            | ClientError::Unreadable { .. }
            | ClientError::Transport { .. }
            | ClientError::AskUnsure { .. }
            | ClientError::Certificate { .. }
            | ClientError::WaitLost { .. } => BackendError::Unavailable(err.to_string()),
        }
    }
}

/// What the MCP tools read of a question view (`GET /v1/questions/{id}`). Its input was read as
/// stored (an approval's request carries its approval), with the same checks.
fn state(view: QuestionView) -> QuestionState {
    QuestionState { id: view.request_id, request: view.input, outcome: view.outcome }
}

impl Backend for Remote {
    async fn ask(&self, ask: McpAsk) -> Result<RequestId, BackendError> {
        let mut body = json!({"agent": ask.agent, "session_key": ask.session_key});
        match ask.request.approval() {
            Some(approval) => body["approval"] = approval.to_value(),
            None => body["questions"] = ask.request.to_value(),
        }
        Ok(self.client()?.ask(&body).await?.request_id)
    }

    async fn wait(&self, id: RequestId, wait: Duration) -> Result<QuestionState, BackendError> {
        let waiter = Relocating::new(self.locator.clone(), self.client()?);
        let wait = Wait::at_most(wait, MAX_POLL, std::time::Instant::now());
        let view = waiter.wait_on(&id.to_string(), wait, |notice| tracing::warn!(request_id = %id, "{notice}")).await?;
        Ok(state(view))
    }

    async fn question(&self, id: RequestId) -> Result<QuestionState, BackendError> {
        self.wait(id, Duration::ZERO).await
    }

    async fn withdraw(&self, id: RequestId, reason: &str) -> Result<(), BackendError> {
        match self.client()?.cancel(&id.to_string(), reason).await {
            Ok(_) => Ok(()),
            // Answered meanwhile: nothing to withdraw.
            Err(err) if err.kind() == Some(ErrorKind::AlreadyResolved) => Ok(()),
            Err(err) => Err(err.into()),
        }
    }
}
