//! What one connection, and one caller, may hold of the gateway and for how long: the numbers
//! the accept loop, the guards and the metrics listener all keep to.

use std::time::Duration;

/// What a connection may hold and for how long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Connections open at once on the TCP port; one more is closed as soon as it is accepted.
    pub max_connections: usize,
    /// Connections open at once on the private socket, counted apart from TCP's.
    pub max_local_connections: usize,
    /// How long a connection may take to send a request's head, and how long a kept-alive
    /// connection may wait for its next request.
    pub header_timeout: Duration,
    /// How long a request's body may take to arrive, once its head has.
    pub body_timeout: Duration,
    /// `?wait=` long-polls held at once.
    pub max_long_polls: usize,
    /// ... of which one caller (a token, a signed-in person) may hold.
    pub long_polls_per_caller: usize,
    /// Event streams (`/v1/events`) open at once.
    pub max_event_streams: usize,
    /// ... of which one caller may hold.
    pub event_streams_per_caller: usize,
    /// MCP sessions open at once (a session ends when its client ends it, or after five idle
    /// minutes).
    pub max_mcp_sessions: usize,
    /// Connections one network address may hold before a request on them is authenticated
    /// (see [`crate::strangers`]).
    pub stranger_connections_per_address: usize,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            max_connections: 256,
            // Each waiting `beckon ask` or hook holds one; long-polls are capped below anyway.
            max_local_connections: 128,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            max_long_polls: 64,
            long_polls_per_caller: 64,
            max_event_streams: 16,
            event_streams_per_caller: 16,
            max_mcp_sessions: 32,
            stranger_connections_per_address: 64,
        }
    }
}
