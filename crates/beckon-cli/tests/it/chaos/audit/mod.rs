//! The checks after the run: over HTTP while the server still runs (every question answered as
//! acknowledged, every session completed), then on the database once it has stopped (nothing
//! asked or resolved twice, every tool_use with one tool_result, every callback delivered, the
//! file intact), and on what the callback receiver saw (signatures, one key per callback).
//! Each finding names the question or session that broke the invariant.

pub mod callbacks;
pub mod live;
pub mod snapshot;
pub mod stored;

use std::collections::HashMap;

use super::journeys::Record;

/// The jobs by marker.
pub fn by_marker(records: &[Record]) -> HashMap<String, &Record> {
    records.iter().map(|record| (record.job.marker(), record)).collect()
}
