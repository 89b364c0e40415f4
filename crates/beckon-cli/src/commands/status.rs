//! `beckon status`: whether Beckon is running, where (its URL, and the private socket this
//! command reached it through, when it did), and how many questions wait; with `--secret`, the
//! callback signing secret.

use std::path::PathBuf;

use serde_json::json;

use crate::cli::{Connection, StatusArgs};
use crate::error::{CliError, CliResult, Exit};

/// Runs `beckon status`.
pub async fn run(connection: &Connection, args: StatusArgs) -> CliResult<Exit> {
    let data_dir = connection.data_dir();
    if args.secret {
        return print_secret(data_dir, args.json).await;
    }
    let reached = match connection.client() {
        Ok(client) => client.health().await.map(|health| (client, health)),
        Err(err) => Err(err),
    };
    let (client, health) = match reached {
        Ok(found) => found,
        Err(err) if args.json => {
            let status = json!({"running": false, "data_dir": data_dir, "error": err.to_string()});
            println!("{}", serde_json::to_string_pretty(&status).unwrap_or_default());
            return Ok(Exit::Failed);
        }
        Err(err) => return Err(err.into()),
    };
    let endpoint = client.endpoint();
    if args.json {
        let status = json!({
            "running": true,
            "url": endpoint.url,
            "pid": endpoint.pid,
            "socket": client.socket(),
            "version": health["version"],
            "pending": health["pending"],
            "data_dir": data_dir,
        });
        println!("{}", serde_json::to_string_pretty(&status).unwrap_or_default());
    } else {
        let pid = endpoint.pid.map(|pid| format!(" (pid {pid})")).unwrap_or_default();
        println!("Beckon is running at {}{pid}", endpoint.url);
        if let Some(socket) = client.socket() {
            println!("Reached through: {}", socket.display());
        }
        println!("Pending questions: {}", health["pending"]);
        println!("Data folder: {}", data_dir.display());
    }
    Ok(Exit::Success)
}

/// Prints the callback secret, read from the data folder's database. The gateway does not hand
/// it out: the database is readable only by the person who owns the data folder, which is who
/// may see it.
async fn print_secret(data_dir: PathBuf, json: bool) -> CliResult<Exit> {
    let folder = data_dir.clone();
    let stored = tokio::task::spawn_blocking(move || beckon_runtime::callbacks::stored_secret(&folder))
        .await
        .map_err(|err| CliError::Io(format!("cannot read the callback secret: {err}")))??;
    let Some(secret) = stored else {
        return Err(beckon_runtime::Error::DataDir {
            path: data_dir,
            detail: "has no callback secret yet; start Beckon once to make one".into(),
        }
        .into());
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&json!({"callback_secret": secret})).unwrap_or_default());
    } else {
        println!("{secret}");
    }
    Ok(Exit::Success)
}
