//! OpenAI's Codex CLI: its permission requests as Beckon approvals ([`hook`]), and the
//! `config.toml` entries that connect it — Beckon's MCP server, the hook, and Codex's record
//! that the person trusts that hook ([`config`], [`setup`]).

pub mod config;
pub mod hook;
pub mod setup;

use crate::Result;
use crate::connect::{Connection, Place, Scope};

/// Codex's configuration in `scope` at `place`, for `beckon` at `program`.
pub fn connection(scope: Scope, place: &Place, program: &str) -> Result<Box<dyn Connection>> {
    Ok(Box::new(setup::Setup::at(scope, place, program)?))
}
