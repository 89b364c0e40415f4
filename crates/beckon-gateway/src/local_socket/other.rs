//! No Unix sockets here: there is never a socket, and clients use TCP. The types exist so the
//! gateway reads the same on every platform; none of their values can be made.

use std::io;
use std::path::Path;

use crate::serve::Listener;
use crate::strangers::Peer;

/// The socket, which cannot exist here.
#[derive(Debug)]
pub enum LocalSocket {}

/// The socket's file, which cannot exist here.
#[derive(Debug, Clone)]
pub enum SocketFile {}

impl LocalSocket {
    /// There is no socket to bind.
    pub async fn bind(_data_dir: &Path) -> io::Result<Option<LocalSocket>> {
        Ok(None)
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        match *self {}
    }

    /// Its file.
    pub fn file(&self) -> SocketFile {
        match *self {}
    }
}

impl Listener for LocalSocket {
    type Stream = tokio::net::TcpStream;

    async fn accept(&self) -> io::Result<(tokio::net::TcpStream, Peer)> {
        match *self {}
    }
}

impl SocketFile {
    /// Nothing to remove.
    pub fn remove_if_ours(&self) {
        match *self {}
    }
}
