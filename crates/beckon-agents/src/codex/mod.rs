//! OpenAI's Codex CLI: its permission requests as Beckon approvals ([`hook`]), and the
//! `config.toml` entries that connect it — Beckon's MCP server, the hook, and Codex's record
//! that the person trusts that hook ([`config`], [`setup`]).

pub mod config;
pub mod hook;
pub mod setup;

use crate::Result;
use crate::connect::{Connection, Place, Scope};
use crate::invocation::Invocation;

/// Codex's configuration in `scope` at `place`, running `beckon` as `beckon` says.
pub fn connection(scope: Scope, place: &Place, beckon: &Invocation) -> Result<Box<dyn Connection>> {
    Ok(Box::new(setup::Setup::at(scope, place, beckon)?))
}
