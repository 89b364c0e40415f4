//! PLACEHOLDER: being built.

use crate::connect::{Connection, Place, Scope};
use crate::{Error, Result};

/// PLACEHOLDER.
pub fn connection(scope: Scope, _place: &Place, _program: &str) -> Result<Box<dyn Connection>> {
    Err(Error::Place(format!("codex is not connected yet ({})", scope.as_str())))
}
