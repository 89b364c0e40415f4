//! OpenCode: its permission prompts and its own question tool as Beckon's approvals and
//! questions ([`hook`]), and the configuration that connects it ([`plugin`], [`config`],
//! [`setup`]).
//!
//! OpenCode has no hook that waits for an outside program's verdict: its server publishes
//! `permission.asked` and `question.asked` on its event bus and takes answers at
//! `POST /permission/:id/reply` and `POST /question/:id/reply`, while its own prompt stays
//! open. So Beckon connects through a plugin OpenCode loads itself, rather than a bridge
//! process subscribed to the server from outside: the plugin runs inside every OpenCode
//! (terminal, `serve`, `run`), for exactly as long as it runs, sees the bus of its own project,
//! and replies through the client OpenCode hands it — no port to discover, no server password
//! to share, nothing to start or stop beside OpenCode. The plugin stays small and dumb: for
//! each prompt it runs `beckon hook opencode`, which does the asking and waiting as every
//! agent's hook does, and posts back what that prints; when OpenCode's own prompt is answered
//! first (`permission.replied`, `question.replied`, `question.rejected`), it stops the hook,
//! which withdraws its question as answered in the terminal. Nothing in it blocks OpenCode's
//! event loop or throws into it; with `beckon` missing or Beckon not running, the hook prints
//! nothing and OpenCode's prompt is the only one, as before.

pub mod config;
pub mod hook;
pub mod plugin;
pub mod setup;

use crate::Result;
use crate::connect::{Connection, Place, Scope};
use crate::invocation::Invocation;

/// OpenCode's configuration in `scope` at `place`, running `beckon` as `beckon` says.
pub fn connection(scope: Scope, place: &Place, beckon: &Invocation) -> Result<Box<dyn Connection>> {
    Ok(Box::new(setup::Setup::at(scope, place, beckon)?))
}
