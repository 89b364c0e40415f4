//! The client's side of the gateway's private socket: a Unix domain socket in the data folder,
//! mode 0600 in a 0700 folder, that only the person's own processes can connect to (the gateway
//! binds it; see its `local_socket`). Requests over it name [`BASE_URL`]; where the platform has
//! no Unix sockets there is never one, and clients use TCP.

use std::path::Path;
use std::time::Duration;

/// The socket's name in the data folder.
pub const FILE: &str = "gateway.sock";

/// The base URL of requests sent over the socket: the connection already says where they go,
/// and HTTP still wants a host.
pub const BASE_URL: &str = "http://localhost";

/// An HTTP client whose every connection goes to the socket at `path` (none when one cannot be
/// set up: the caller uses TCP).
#[cfg(unix)]
pub fn client(path: &Path, connect_timeout: Duration) -> Option<reqwest::Client> {
    reqwest::Client::builder().unix_socket(path).connect_timeout(connect_timeout).build().ok()
}

/// No client can reach a socket here.
#[cfg(not(unix))]
pub fn client(_path: &Path, _connect_timeout: Duration) -> Option<reqwest::Client> {
    None
}
