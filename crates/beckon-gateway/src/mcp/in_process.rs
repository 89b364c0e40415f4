//! The backend inside the app: calls the runtime's service API directly.

use std::time::Duration;

use beckon_core::{AnsweredVia, RequestId};
use beckon_runtime::{Beckon, Decision, Error, ExternalAsk};
use beckon_store::QuestionRecord;

use super::backend::{Backend, BackendError, McpAsk, QuestionState};

/// Beckon in this process (the gateway's `/mcp`).
#[derive(Debug, Clone)]
pub struct InProcess {
    beckon: Beckon,
}

impl InProcess {
    /// A backend on `beckon`.
    pub fn new(beckon: Beckon) -> InProcess {
        InProcess { beckon }
    }
}

impl From<Error> for BackendError {
    fn from(err: Error) -> BackendError {
        match err {
            Error::InvalidInput(problems) | Error::InvalidAnswer(problems) => BackendError::Invalid(problems),
            Error::QuestionNotFound(_) | Error::SessionNotFound(_) | Error::TokenNotFound(_) => {
                BackendError::NotFound(err.to_string())
            }
            Error::WrongState { .. } => BackendError::SessionBusy(err.to_string()),
            Error::ShuttingDown | Error::DataDirLocked { .. } | Error::HeldElsewhere(_) => {
                BackendError::Unavailable(err.to_string())
            }
            Error::AgentNotFound { .. }
            | Error::PersonOnly(_)
            | Error::AlreadyResolved(_)
            | Error::AgentConfig { .. }
            | Error::DataDir { .. }
            | Error::PushKey(_)
            | Error::Store(_) => BackendError::Failed(err.to_string()),
        }
    }
}

fn state(record: QuestionRecord) -> QuestionState {
    QuestionState { id: record.id, request: record.request, outcome: record.outcome }
}

impl Backend for InProcess {
    async fn ask(&self, ask: McpAsk) -> Result<RequestId, BackendError> {
        let asked = self
            .beckon
            .ask_external(ExternalAsk {
                agent: ask.agent,
                external_key: ask.session_key,
                request: Some(ask.request),
                ..ExternalAsk::default()
            })
            .await?;
        Ok(asked.request_id)
    }

    async fn wait(&self, id: RequestId, wait: Duration) -> Result<QuestionState, BackendError> {
        Ok(state(self.beckon.inbox().wait_for_resolution(id, wait).await?))
    }

    async fn question(&self, id: RequestId) -> Result<QuestionState, BackendError> {
        Ok(state(self.beckon.inbox().question(id).await?))
    }

    async fn withdraw(&self, id: RequestId, reason: &str) -> Result<(), BackendError> {
        match self.beckon.resolve(id, AnsweredVia::Mcp, Decision::Withdraw(Some(reason.to_owned()))).await {
            // Answered meanwhile: nothing to withdraw.
            Ok(_) | Err(Error::AlreadyResolved(_)) => Ok(()),
            Err(err) => Err(err.into()),
        }
    }
}
