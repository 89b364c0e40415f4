//! `beckon` as run on an agent's machine, apart from any Beckon of the test's: a home of its own,
//! and nothing of Beckon's or of TLS's in the environment (so what it finds, and whom it
//! trusts, comes from what it was given or what setup wrote there).

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

/// `beckon` with `home` as its home.
pub fn beckon_at(home: &Path) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_beckon"));
    command
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env_remove("BECKON_DATA_DIR")
        .env_remove("BECKON_URL")
        .env_remove("BECKON_TOKEN")
        .env_remove("BECKON_CONNECTION_FILE")
        .env_remove("BECKON_CA_FILE")
        .env_remove("SSL_CERT_FILE")
        .env_remove("SSL_CERT_DIR")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    command
}

/// Runs `command` to its end (a minute at most).
pub async fn finished(command: &mut tokio::process::Command) -> std::process::Output {
    tokio::time::timeout(Duration::from_secs(60), command.output()).await.expect("it finished").unwrap()
}
