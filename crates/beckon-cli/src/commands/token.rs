//! PLACEHOLDER: being built.

use crate::cli::{Connection, TokenArgs};
use crate::error::{CliError, CliResult, Exit};

/// Runs `beckon token …`.
pub async fn run(_connection: &Connection, _args: TokenArgs) -> CliResult<Exit> {
    Err(CliError::Input("not built yet".into()))
}
