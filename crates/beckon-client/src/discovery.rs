//! `gateway.json` in the data folder: how clients (the CLI, `beckon mcp`, scripts) find the
//! running Beckon — its TCP address, and the private socket where there is one. Readable by its
//! owner only, since it holds the bearer token.
//!
//! On a machine whose agents reach the person's Beckon elsewhere, the connection file
//! ([`RemoteConnection`], `remote.json` or `BECKON_CONNECTION_FILE`) says where and with which
//! ask-only token.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The file's name.
pub const FILE: &str = "gateway.json";

/// Where the gateway listens and the token it wants.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Discovery {
    /// The base URL, `http://127.0.0.1:<port>`.
    pub url: String,
    /// The bearer token.
    pub token: String,
    /// The process serving it.
    pub pid: u32,
    /// The private socket Beckon's own clients use (absent where there is none, and in the files
    /// of Beckons older than it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub socket: Option<PathBuf>,
}

impl std::fmt::Debug for Discovery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The token is a credential: never in logs or panics.
        f.debug_struct("Discovery")
            .field("url", &self.url)
            .field("token", &"<redacted>")
            .field("pid", &self.pid)
            .field("socket", &self.socket)
            .finish()
    }
}

impl Discovery {
    /// The file in `data_dir`.
    pub fn path(data_dir: &Path) -> PathBuf {
        data_dir.join(FILE)
    }

    /// Writes the file atomically with mode 0600.
    pub fn write(&self, data_dir: &Path) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        crate::private_file::write(&Self::path(data_dir), text.as_bytes())
    }

    /// Reads the file in `data_dir`.
    pub fn read(data_dir: &Path) -> std::io::Result<Discovery> {
        let text = std::fs::read_to_string(Self::path(data_dir))?;
        serde_json::from_str(&text).map_err(|err| std::io::Error::new(std::io::ErrorKind::InvalidData, err))
    }

    /// Removes the file if it still describes this process.
    pub fn remove_if_ours(data_dir: &Path) {
        if Self::read(data_dir).is_ok_and(|found| found.pid == std::process::id()) {
            let _ = std::fs::remove_file(Self::path(data_dir));
        }
    }
}

/// The connection file's name in the data folder, on a machine that reaches another's Beckon.
pub const CONNECTION_FILE: &str = "remote.json";
/// The environment variable that names a connection file elsewhere.
pub const CONNECTION_FILE_ENV: &str = "BECKON_CONNECTION_FILE";

/// The connection file of a machine whose agents reach the person's Beckon on another machine
/// (through a tunnel): the URL it answers at here and an ask-only token. Read only when there
/// is no `gateway.json`, so a Beckon running on this machine comes first. It holds a token, so
/// it must be readable by its owner only; one that others can read is refused.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RemoteConnection {
    /// The base URL, `http://127.0.0.1:<port>` (the forwarded port).
    pub url: String,
    /// The ask-only token.
    pub token: String,
    /// Certificate authorities to trust for it beside the system's (a PEM file): a team server
    /// whose certificate a private authority issued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_file: Option<PathBuf>,
}

impl std::fmt::Debug for RemoteConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The token is a credential: never in logs or panics.
        f.debug_struct("RemoteConnection")
            .field("url", &self.url)
            .field("token", &"<redacted>")
            .field("ca_file", &self.ca_file)
            .finish()
    }
}

impl RemoteConnection {
    /// Where the file is: `BECKON_CONNECTION_FILE` when set, else `remote.json` in `data_dir`;
    /// and whether it was named outright (then it must exist).
    pub fn path(data_dir: &Path) -> (PathBuf, bool) {
        match std::env::var_os(CONNECTION_FILE_ENV).filter(|path| !path.is_empty()) {
            Some(path) => (PathBuf::from(path), true),
            None => (data_dir.join(CONNECTION_FILE), false),
        }
    }

    /// Writes the file atomically with mode 0600.
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        crate::private_file::write(path, text.as_bytes())
    }

    /// Reads the file at `path`, refusing one that anyone but its owner may read or write.
    pub fn read(path: &Path) -> std::io::Result<RemoteConnection> {
        let text = std::fs::read_to_string(path)?;
        check_private(path)?;
        serde_json::from_str(&text).map_err(|err| std::io::Error::new(std::io::ErrorKind::InvalidData, err))
    }
}

#[cfg(unix)]
fn check_private(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path)?.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            format!(
                "it holds a token but others may read it (mode {mode:04o}); run `chmod 600 {}` and check who has seen it",
                path.display()
            ),
        ));
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_private(_path: &Path) -> std::io::Result<()> {
    // Where there are no Unix modes, the file sits in the person's own profile folder.
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_file_is_written_private_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("remote.json");
        let written =
            RemoteConnection { url: "http://127.0.0.1:7393".into(), token: "bkn_ask_x".into(), ca_file: None };
        written.write(&path).unwrap();
        assert_eq!(RemoteConnection::read(&path).unwrap(), written);
        assert!(!format!("{written:?}").contains("bkn_ask_x"), "the token stays out of Debug");
    }

    #[cfg(unix)]
    #[test]
    fn a_connection_file_others_can_read_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("remote.json");
        RemoteConnection { url: "http://127.0.0.1:7393".into(), token: "t".into(), ca_file: None }
            .write(&path)
            .unwrap();
        for mode in [0o644, 0o640, 0o604, 0o660] {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
            let err = RemoteConnection::read(&path).unwrap_err();
            assert_eq!(err.kind(), std::io::ErrorKind::PermissionDenied, "{mode:o}");
            assert!(err.to_string().contains("chmod 600"), "{err}");
        }
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o400)).unwrap();
        assert!(RemoteConnection::read(&path).is_ok(), "read-only for its owner is fine");
    }

    #[test]
    fn a_connection_file_with_unknown_fields_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("remote.json");
        crate::private_file::write(&path, br#"{"url": "http://127.0.0.1:1", "token": "t", "tokn": "x"}"#).unwrap();
        assert_eq!(RemoteConnection::read(&path).unwrap_err().kind(), std::io::ErrorKind::InvalidData);
    }
}
