//! The private door Beckon's own clients (the `beckon` command, its Claude Code hooks and
//! `beckon mcp`) come in by: a Unix domain socket in the data folder, mode 0600 in a 0700
//! folder, so only the person's own processes can even connect. Any local user may open TCP
//! connections to the loopback port, token or not, and hold every place there; nobody else
//! can open one here, so such a flood does not reach the person's own clients. Behind the door
//! are the same routes and the same token; the socket has a connection cap of its own.
//!
//! Where the platform has no Unix sockets (or the data folder's path is too long for one) there
//! is no socket: `gateway.json` names none and clients use TCP.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::{LocalSocket, SocketFile};

#[cfg(not(unix))]
mod other;
#[cfg(not(unix))]
pub use other::{LocalSocket, SocketFile};

use std::path::Path;

pub use beckon_client::local_socket::{BASE_URL, FILE, client};

/// The socket in `data_dir`, or none (said in the log, with why): local clients then use TCP.
/// The gateway runs either way.
pub async fn open(data_dir: &Path) -> Option<LocalSocket> {
    match LocalSocket::bind(data_dir).await {
        Ok(socket) => socket,
        Err(err) => {
            tracing::warn!(%err, "no local socket for Beckon's own clients; they will connect over TCP");
            None
        }
    }
}
