//! A lease on work one replica does at a time.

/// A lease held: on what, by whom, until when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    /// The work.
    pub work: String,
    /// The replica holding it.
    pub owner: String,
    /// When it runs out (Unix ms).
    pub expires_at_ms: i64,
}
