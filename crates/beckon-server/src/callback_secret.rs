//! `beckon status --secret`: the secret callbacks are signed with, read from the data folder's
//! database. The gateway does not hand it out: the database is readable only by the person who
//! owns the data folder, which is who may see it. Beckon need not be running.

use beckon_cli::cli::Connection;
use beckon_cli::error::Exit;
use serde_json::json;

use crate::cli::SecretArgs;
use crate::error::{ServerError, ServerResult};

/// Prints the callback secret.
pub async fn run(connection: &Connection, args: SecretArgs) -> ServerResult<Exit> {
    let data_dir = connection.data_dir();
    let folder = data_dir.clone();
    let stored = tokio::task::spawn_blocking(move || beckon_runtime::callbacks::stored_secret(&folder))
        .await
        .map_err(|err| ServerError::Io(format!("cannot read the callback secret: {err}")))??;
    let Some(secret) = stored else {
        return Err(beckon_runtime::Error::DataDir {
            path: data_dir,
            detail: "has no callback secret yet; start Beckon once to make one".into(),
        }
        .into());
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&json!({"callback_secret": secret})).unwrap_or_default());
    } else {
        println!("{secret}");
    }
    Ok(Exit::Success)
}
