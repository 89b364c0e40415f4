//! `beckon status`: whether Beckon is running, where (its URL, and the private socket this
//! command reached it through, when it did), and how many questions wait; with `--secret`, the
//! callback signing secret.

use std::ffi::OsString;

use serde_json::json;

use crate::cli::{Connection, StatusArgs};
use crate::error::{CliResult, Exit};

/// Runs `beckon status`.
pub async fn run(connection: &Connection, args: StatusArgs) -> CliResult<Exit> {
    let data_dir = connection.data_dir();
    if args.secret {
        // Read from the database, which only `beckon-server` links.
        let mut handed = vec![OsString::from("--data-dir"), data_dir.into_os_string(), "callback-secret".into()];
        if args.json {
            handed.push("--json".into());
        }
        return super::server::hand_over(handed);
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
            "version": health.version,
            "pending": health.pending,
            "data_dir": data_dir,
        });
        println!("{}", serde_json::to_string_pretty(&status).unwrap_or_default());
    } else {
        let pid = endpoint.pid.map(|pid| format!(" (pid {pid})")).unwrap_or_default();
        println!("Beckon is running at {}{pid}", endpoint.url);
        if let Some(socket) = client.socket() {
            println!("Reached through: {}", socket.display());
        }
        println!("Pending questions: {}", health.pending);
        println!("Data folder: {}", data_dir.display());
    }
    Ok(Exit::Success)
}
