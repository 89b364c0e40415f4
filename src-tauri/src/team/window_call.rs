//! The window's commands sent to a team inbox's server, for the questions and sessions that
//! wait there.

use beckon_gateway::client::ClientError;
use beckon_gateway::team_inbox::TeamInbox;
use beckon_runtime::api::ErrorKind;
use beckon_runtime::api::window::WindowCommand;

use crate::command_error::{CommandError, Reply};

/// Window command `command` sent to the team inbox a question or session waits in: the same
/// reply a local one gives.
pub(crate) async fn team_call<T: serde::de::DeserializeOwned>(inbox: &TeamInbox, command: &WindowCommand) -> Reply<T> {
    inbox.call(command).await.map_err(|err| match err {
        ClientError::Api { body, .. } => CommandError(body),
        other => CommandError::new(ErrorKind::Unavailable, other.to_string(), None),
    })
}
