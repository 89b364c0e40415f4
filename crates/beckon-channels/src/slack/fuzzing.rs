//! The readers of what Slack sends over Socket Mode, for the fuzz targets in `fuzz/`: each
//! frame as the socket reads it, and an envelope's payload as the socket hands it on (an
//! `interactive` one to [`read_interaction`], an `events_api` one to [`pairing_code`]). Not an
//! API: these are the private readers themselves, re-exported so that what is fuzzed is what
//! runs.

#![doc(hidden)]

pub use super::direct::pairing_code;
pub use super::interaction::{Interaction, read as read_interaction};
pub use super::socket::{Frame, read_frame};
