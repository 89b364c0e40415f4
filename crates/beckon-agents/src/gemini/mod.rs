//! Google's Gemini CLI. Gemini lets no outside program approve a tool call: its `BeforeTool`
//! hook can deny or force a prompt but not allow, and its `Notification` hook only observes. So
//! its permission prompts reach Beckon as notices naming what it asks to do, answered in
//! Gemini's own terminal, and cleared when the session goes on ([`notice`]). Its questions to
//! the person go through Beckon's MCP server, trusted so its tools run without a prompt. The
//! settings that connect it are edited by [`settings`] and written by [`setup`].

pub mod notice;
pub mod settings;
pub mod setup;

use crate::Result;
use crate::connect::{Connection, Place, Scope};
use crate::invocation::Invocation;

/// Gemini's configuration in `scope` at `place`, running `beckon` as `beckon` says.
pub fn connection(scope: Scope, place: &Place, beckon: &Invocation) -> Result<Box<dyn Connection>> {
    Ok(Box::new(setup::Setup::at(scope, place, beckon)?))
}
