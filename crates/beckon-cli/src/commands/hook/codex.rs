//! PLACEHOLDER: being built.

use crate::cli::Connection;

/// Runs `beckon hook codex`.
pub async fn run(_connection: &Connection) -> Result<(), String> {
    Err("not built yet".into())
}
