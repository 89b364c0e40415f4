//! PLACEHOLDER: being built.

use crate::cli::{Connection, RemoteArgs};
use crate::error::{CliError, CliResult, Exit};

/// Runs `beckon remote …`.
pub async fn run(_connection: &Connection, _args: RemoteArgs) -> CliResult<Exit> {
    Err(CliError::Input("not built yet".into()))
}
