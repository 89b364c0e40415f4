//! An error as the window receives it, from any of its commands.

use beckon_runtime::api::{ErrorBody, ErrorKind};

use crate::settings::SaveError;

/// An error as the window receives it: `{kind, message, field?, problems?, winner?}`.
#[derive(Debug, serde::Serialize)]
#[serde(transparent)]
pub struct CommandError(pub(crate) Box<ErrorBody>);

impl CommandError {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>, field: Option<&str>) -> Self {
        let mut body = ErrorBody::new(kind, message);
        body.field = field.map(str::to_owned);
        CommandError(Box::new(body))
    }
}

impl From<beckon_runtime::Error> for CommandError {
    fn from(err: beckon_runtime::Error) -> Self {
        CommandError(Box::new(ErrorBody::from(err)))
    }
}

impl From<SaveError> for CommandError {
    fn from(err: SaveError) -> Self {
        let message = err.to_string();
        match err {
            SaveError::Invalid(problems) => CommandError(Box::new(ErrorBody::with_problems(
                ErrorKind::InvalidInput,
                message,
                problems.iter().cloned().collect(),
            ))),
            SaveError::Io(_) => CommandError::new(ErrorKind::Internal, message, None),
        }
    }
}

impl From<beckon_channels::Error> for CommandError {
    fn from(err: beckon_channels::Error) -> Self {
        match err {
            beckon_channels::Error::Runtime(err) => err.into(),
            missing @ beckon_channels::Error::NoPairingRequest => {
                CommandError::new(ErrorKind::NotFound, missing.to_string(), None)
            }
            other => CommandError::new(ErrorKind::Unavailable, other.to_string(), None),
        }
    }
}

impl From<tauri_plugin_autostart::Error> for CommandError {
    fn from(err: tauri_plugin_autostart::Error) -> Self {
        CommandError::new(
            ErrorKind::Unavailable,
            format!("Starting at login could not be read or changed: {err}"),
            None,
        )
    }
}

/// A command's reply, or its error.
pub type Reply<T> = Result<T, CommandError>;
