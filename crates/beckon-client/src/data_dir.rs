//! Where a Beckon keeps its data: the folder every front end uses unless told otherwise. The
//! server keeps its database there; clients find `gateway.json` there.

use std::path::{Path, PathBuf};

/// The app's identifier, which names its data folder.
pub const APP_ID: &str = "dev.beckon.desktop";

/// The data folder every Beckon front end uses unless told otherwise: `BECKON_DATA_DIR`, else
/// the platform's app data folder (`$XDG_DATA_HOME/dev.beckon.desktop`, by default
/// `~/.local/share/dev.beckon.desktop`; `~/Library/Application Support/…` on macOS).
pub fn default_data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("BECKON_DATA_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."));
    let xdg = std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()).map(PathBuf::from);
    app_data_dir(&home, xdg)
}

/// The platform's app data folder for the home folder `home`, with `$XDG_DATA_HOME` as
/// `xdg_data_home` (Linux and the like; `None` where it is not set): what [`default_data_dir`]
/// finds when `BECKON_DATA_DIR` is not set.
pub fn app_data_dir(home: &Path, xdg_data_home: Option<PathBuf>) -> PathBuf {
    let base = if cfg!(target_os = "macos") {
        home.join("Library").join("Application Support")
    } else if cfg!(target_os = "windows") {
        std::env::var_os("APPDATA").map(PathBuf::from).unwrap_or_else(|| home.to_path_buf())
    } else {
        xdg_data_home.unwrap_or_else(|| home.join(".local").join("share"))
    };
    base.join(APP_ID)
}
