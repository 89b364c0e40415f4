//! GitHub Copilot CLI: its permission requests as Beckon approvals ([`hook`]), and the hook and
//! MCP server entries that connect it ([`settings`], [`setup`]).

pub mod hook;
pub mod settings;
pub mod setup;

use crate::Result;
use crate::connect::{Connection, Place, Scope};
use crate::invocation::Invocation;

/// Copilot CLI's configuration in `scope` at `place`, running `beckon` as `beckon` says.
pub fn connection(scope: Scope, place: &Place, beckon: &Invocation) -> Result<Box<dyn Connection>> {
    Ok(Box::new(setup::Setup::at(scope, place, beckon)?))
}
