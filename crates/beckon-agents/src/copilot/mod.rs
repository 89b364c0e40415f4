//! GitHub Copilot CLI: its permission requests as Beckon approvals ([`hook`]), and the hook and
//! MCP server entries that connect it ([`settings`], [`setup`]).

pub mod hook;
pub mod settings;
pub mod setup;

use crate::Result;
use crate::connect::{Connection, Place, Scope};

/// Copilot CLI's configuration in `scope` at `place`, for `beckon` at `program`.
pub fn connection(scope: Scope, place: &Place, program: &str) -> Result<Box<dyn Connection>> {
    Ok(Box::new(setup::Setup::at(scope, place, program)?))
}
