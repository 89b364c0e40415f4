//! A home folder for one app run: `HOME` and the XDG folders point inside it, and agents the
//! test defines are written into its data folder.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// A temporary home.
#[derive(Debug)]
pub struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    /// A fresh one whose Beckon has already put its getting-started guide away, so the window
    /// opens on the inbox as it does for everyone after their first run.
    pub fn new() -> std::io::Result<Home> {
        let home = Home::first_run()?;
        let data = home.data_dir();
        std::fs::create_dir_all(&data)?;
        let settings = data.join("settings.json");
        std::fs::write(&settings, serde_json::json!({"guide_dismissed": true}).to_string())?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o700))?;
            std::fs::set_permissions(&settings, std::fs::Permissions::from_mode(0o600))?;
        }
        Ok(home)
    }

    /// A fresh one with nothing in it: Beckon's first run on this computer.
    pub fn first_run() -> std::io::Result<Home> {
        Ok(Home { dir: tempfile::tempdir()? })
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Where Beckon's start-at-login entry goes (`$XDG_CONFIG_HOME/autostart/Beckon.desktop`).
    pub fn autostart_entry(&self) -> PathBuf {
        self.dir.path().join(".config/autostart/Beckon.desktop")
    }

    /// Beckon's data folder inside it.
    pub fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// Defines an agent `name` on the scripted provider, playing `script`.
    pub fn scripted_agent(&self, name: &str, script: &Value) -> std::io::Result<()> {
        let agents = self.data_dir().join("agents");
        std::fs::create_dir_all(&agents)?;
        std::fs::write(
            agents.join(format!("{name}.md")),
            format!("---\nname: {name}\nprovider: scripted\nscript: {name}.json\n---\n"),
        )?;
        std::fs::write(agents.join(format!("{name}.json")), script.to_string())
    }

    /// Points `command`'s home, XDG folders and Beckon data folder here.
    pub fn apply(&self, command: &mut Command) {
        let root = self.dir.path();
        command
            .env("HOME", root)
            .env("XDG_DATA_HOME", root.join(".local/share"))
            .env("XDG_CONFIG_HOME", root.join(".config"))
            .env("XDG_CACHE_HOME", root.join(".cache"))
            .env("XDG_RUNTIME_DIR", root.join("run"))
            .env("BECKON_DATA_DIR", self.data_dir())
            // Programs the desktop would run (a browser, say) are looked for here first.
            .env(
                "PATH",
                std::env::join_paths(
                    std::iter::once(root.join("bin"))
                        .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
                )
                .unwrap_or_default(),
            );
        for dir in [".local/share", ".config", ".cache", "run", "bin"] {
            let _ = std::fs::create_dir_all(root.join(dir));
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(root.join("run"), std::fs::Permissions::from_mode(0o700));
        }
    }

    /// Stands in for the person's browser: the addresses the app opens (`xdg-open`, as the
    /// system's launcher is asked) are written, one a line, to the file returned, and nothing
    /// else happens; the test plays the person there.
    pub fn browser_stand_in(&self) -> std::io::Result<PathBuf> {
        let bin = self.dir.path().join("bin");
        std::fs::create_dir_all(&bin)?;
        let opened = self.dir.path().join("opened-urls");
        let script = bin.join("xdg-open");
        std::fs::write(&script, format!("#!/bin/sh\nprintf '%s\\n' \"$1\" >> '{}'\n", opened.display()))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))?;
        }
        Ok(opened)
    }
}
