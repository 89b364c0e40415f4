//! What handlers share.

use beckon_runtime::Beckon;

use crate::cookies::Cookies;
use crate::places::Places;
use crate::rate::RateLimiter;
use crate::sign_in::SignIn;

/// Shared by every request.
pub struct Shared {
    /// The runtime.
    pub beckon: Beckon,
    /// The bearer token.
    pub token: String,
    /// The port (Host headers must name it).
    pub port: u16,
    /// A team server's public address, whose host requests may name too.
    pub public_url: Option<crate::PublicUrl>,
    /// The address a server listening on one non-loopback address is reached at, which
    /// requests may name too.
    pub own_host: Option<String>,
    /// The base URL for links: the public URL when there is one.
    pub url: String,
    /// Write limits.
    pub rate: RateLimiter,
    /// What callers who have shown no credential may hold and spend, per address.
    pub strangers: std::sync::Arc<crate::strangers::Strangers>,
    /// The largest body accepted.
    pub body_limit: usize,
    /// How long a body may take to arrive.
    pub body_timeout: std::time::Duration,
    /// Places for `?wait=` long-polls.
    pub long_polls: Places,
    /// Places for event streams.
    pub event_streams: Places,
    /// MCP sessions open at once.
    pub max_mcp_sessions: usize,
    /// Signing in through the team's identity provider, when this server is set up for it.
    pub sign_in: Option<SignIn>,
    /// The window's built files, served to browsers (only where people sign in).
    pub window_dir: Option<std::path::PathBuf>,
    /// The channels signed-in people may pair their own accounts on.
    pub pairable_channels: Vec<String>,
    /// How the browser session's cookies are named and marked.
    pub cookies: Cookies,
    /// What this replica counts for its metrics.
    pub(crate) tally: std::sync::Arc<crate::metrics::Tally>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The token is a credential: never in logs or panics.
        f.debug_struct("Shared").field("url", &self.url).field("token", &"<redacted>").finish_non_exhaustive()
    }
}
