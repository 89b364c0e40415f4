//! What handlers share.

use beckon_runtime::Beckon;

use crate::rate::RateLimiter;

/// Shared by every request.
#[derive(Debug)]
pub struct Shared {
    /// The runtime.
    pub beckon: Beckon,
    /// The bearer token.
    pub token: String,
    /// The port (Host headers must name it).
    pub port: u16,
    /// The base URL, for links.
    pub url: String,
    /// Write limits.
    pub rate: RateLimiter,
    /// The largest body accepted.
    pub body_limit: usize,
}
