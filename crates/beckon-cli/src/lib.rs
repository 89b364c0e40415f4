//! The `beckon` command: put a question to the person from a script and wait for the answer,
//! answer or list questions from a terminal, run as an agent's hook, connect agents. Every
//! command talks to the running Beckon through its gateway, found through `gateway.json` in the
//! data folder; the commands that serve (`serve`, `mcp`) are `beckon-server`'s, handed over to
//! it, so that a hook, run on every tool call of every agent, links only the client.
//!
//! `beckon-server` reads the same command line: it shares [`cli::Connection`] (how a command
//! finds Beckon), [`error::Exit`] and [`process`] (how it starts and ends) and [`signals`] with
//! this crate.

pub mod cli;
mod commands;
pub mod error;
mod output;
pub mod process;
pub mod signals;

pub use commands::run;
