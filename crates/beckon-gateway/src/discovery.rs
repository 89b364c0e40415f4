//! `gateway.json` in the data folder: how clients (the CLI, `beckon mcp`, scripts) find the
//! running Beckon — its TCP address, and the private socket where there is one. Readable by its
//! owner only, since it holds the bearer token.

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
        beckon_runtime::private_file::write(&Self::path(data_dir), text.as_bytes())
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
