//! What `beckon setup` finds in an agent's configuration, and what it changed there.

/// Whether a configuration already holds exactly what connecting would write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Everything is there, as this `beckon` would write it.
    Connected,
    /// Some of it is there, or it runs another `beckon` or other timeouts.
    OutOfDate,
    /// None of it is there.
    NotConnected,
}

/// What happened to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The file (and the part of it, when that needs saying).
    pub place: String,
    /// What Beckon's entries there are.
    pub what: &'static str,
    /// Whether it changed (or would, on a dry run).
    pub changed: bool,
}

/// What connecting or disconnecting did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// One entry per file, in the order they were written.
    pub changes: Vec<Change>,
}
