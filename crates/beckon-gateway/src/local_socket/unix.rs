//! The socket on Unix: bound in the data folder, made 0600, a stale one from a killed run
//! replaced, and removed again at stop if it is still the one bound.

use std::fs;
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use tokio::net::{UnixListener, UnixStream};

use crate::serve::Listener;
use crate::strangers::Peer;

/// The longest path a Unix socket address holds, in bytes: `sun_path` is 108 bytes on Linux
/// (104 on the BSDs and macOS), the last one the terminating NUL.
#[cfg(any(target_os = "linux", target_os = "android"))]
pub const MAX_PATH_BYTES: usize = 107;
/// The longest path a Unix socket address holds, in bytes: `sun_path` is 108 bytes on Linux
/// (104 on the BSDs and macOS), the last one the terminating NUL.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub const MAX_PATH_BYTES: usize = 103;

/// The socket, listening.
#[derive(Debug)]
pub struct LocalSocket {
    listener: UnixListener,
    file: SocketFile,
}

/// The socket's file as bound: which file it is, so that stopping removes it only if no one
/// has put another in its place since.
#[derive(Debug, Clone)]
pub struct SocketFile {
    path: PathBuf,
    device: u64,
    inode: u64,
}

impl LocalSocket {
    /// Binds the socket in `data_dir`: refused for a path too long for a socket address, and
    /// for a file of that name that is not a socket, or a socket another Beckon still serves.
    pub async fn bind(data_dir: &Path) -> io::Result<Option<LocalSocket>> {
        // Absolute, because clients in other folders read it from `gateway.json`.
        let path = std::path::absolute(data_dir.join(super::FILE))?;
        let length = path.as_os_str().len();
        if length > MAX_PATH_BYTES {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{} is {length} bytes long, and a socket's path may be at most {MAX_PATH_BYTES}; use a data folder with a shorter path for the private socket",
                    path.display()
                ),
            ));
        }
        let at = |err: io::Error| io::Error::new(err.kind(), format!("{}: {err}", path.display()));
        // Whoever can search the folder could reach the socket, whatever the socket's own mode.
        beckon_client::private_folder::owner_alone(data_dir).map_err(at)?;
        clear_stale(&path).await?;
        let listener = UnixListener::bind(&path).map_err(at)?;
        // The folder is the person's alone already, so the moment before this is no opening;
        // the mode keeps the socket theirs even if the folder is opened up later.
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).map_err(at)?;
        let meta = fs::symlink_metadata(&path).map_err(at)?;
        Ok(Some(LocalSocket { listener, file: SocketFile { path, device: meta.dev(), inode: meta.ino() } }))
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.file.path
    }

    /// Its file, to remove at stop.
    pub fn file(&self) -> SocketFile {
        self.file.clone()
    }
}

impl Listener for LocalSocket {
    type Stream = UnixStream;

    async fn accept(&self) -> io::Result<(UnixStream, Peer)> {
        self.listener.accept().await.map(|(stream, _)| (stream, Peer(None)))
    }
}

impl SocketFile {
    /// Removes the file if it is still the socket that was bound.
    pub fn remove_if_ours(&self) {
        let ours =
            fs::symlink_metadata(&self.path).is_ok_and(|meta| meta.dev() == self.device && meta.ino() == self.inode);
        if ours {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Removes a socket a killed run left behind. Beckon holds the data folder's lock before it
/// starts the gateway, so no other Beckon can be serving on this folder; still, a socket that
/// answers is never taken from whoever serves it, and a file that is not a socket is left alone.
async fn clear_stale(path: &Path) -> io::Result<()> {
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(err) => return Err(err),
    };
    if !meta.file_type().is_socket() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("{} exists and is not a socket; it is left as it is", path.display()),
        ));
    }
    match UnixStream::connect(path).await {
        Ok(_) => Err(io::Error::new(
            io::ErrorKind::AddrInUse,
            format!("another process serves {}; it is left to it", path.display()),
        )),
        Err(err) if err.kind() == io::ErrorKind::ConnectionRefused => fs::remove_file(path),
        Err(err) => Err(err),
    }
}
