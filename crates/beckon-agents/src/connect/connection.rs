//! What every agent's configuration answers to, whichever files it keeps.

use std::path::Path;

use super::report::{Report, State};
use super::scope::Scope;
use crate::Result;
use crate::agent::Agent;

/// One agent's configuration in one scope, and how it should run `beckon`.
pub trait Connection: std::fmt::Debug + Send + Sync {
    /// Whose configuration this is.
    fn agent(&self) -> Agent;
    /// Which scope.
    fn scope(&self) -> Scope;
    /// The file that holds the hooks (what Settings names).
    fn main_file(&self) -> &Path;
    /// Whether the agent is connected to this `beckon` here.
    fn state(&self) -> Result<State>;
    /// Adds Beckon (or, with `remove`, takes out only Beckon's entries); on a `dry_run` writes
    /// nothing.
    fn apply(&self, remove: bool, dry_run: bool) -> Result<Report>;
    /// What the person still has to do (or should know) once connected.
    fn next_step(&self) -> String;
}
