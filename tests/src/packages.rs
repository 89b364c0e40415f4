//! The packages `scripts/package` builds, looked at and installed as a person's system would:
//! their file lists (`dpkg-deb`, `rpm`), their files unpacked, and the .deb installed with
//! `dpkg` and removed again.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::{Failure, target_dir};

/// One build's .deb and .rpm.
#[derive(Debug)]
pub struct Packages {
    /// The Debian package.
    pub deb: PathBuf,
    /// The RPM package.
    pub rpm: PathBuf,
}

impl Packages {
    /// The .deb and .rpm of the version `src-tauri/tauri.conf.json` names, built in the profile
    /// `BECKON_PACKAGE_PROFILE` names: `debug` (what `scripts/test` builds) unless it says
    /// `release`. Fails, saying how to build them, when they are not there.
    pub fn built() -> Result<Packages, Failure> {
        let profile = std::env::var("BECKON_PACKAGE_PROFILE").unwrap_or_else(|_| "debug".into());
        let how =
            if profile == "debug" { "`scripts/package --debug` (scripts/test does)" } else { "`scripts/package`" };
        let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("../src-tauri/tauri.conf.json");
        let config: Value = serde_json::from_str(&std::fs::read_to_string(config)?)?;
        let product = config["productName"].as_str().ok_or("tauri.conf.json has no productName")?;
        let version = config["version"].as_str().ok_or("tauri.conf.json has no version")?;
        let bundle = target_dir().join(&profile).join("bundle");
        let find = |kind: &str, prefix: String| -> Result<PathBuf, Failure> {
            let dir = bundle.join(kind);
            let suffix = format!(".{kind}");
            let named = |path: &PathBuf| {
                let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                name.starts_with(&prefix) && name.ends_with(&suffix) && path.is_file()
            };
            let found: Vec<PathBuf> = match std::fs::read_dir(&dir) {
                Ok(entries) => entries.flatten().map(|entry| entry.path()).filter(named).collect(),
                Err(_) => Vec::new(),
            };
            match found.as_slice() {
                [one] => Ok(one.clone()),
                [] => Err(format!(
                    "the {profile} .{kind} of {product} {version} was not built (no {prefix}*{suffix} in {}): \
                     run {how} first",
                    dir.display()
                )
                .into()),
                several => Err(format!("several {prefix}*{suffix} in {}: {several:?}", dir.display()).into()),
            }
        };
        Ok(Packages {
            deb: find("deb", format!("{product}_{version}_"))?,
            rpm: find("rpm", format!("{product}-{version}-"))?,
        })
    }
}

/// Runs `command` and returns what it printed; fails with its error output when it fails.
pub fn run(command: &mut Command) -> Result<String, Failure> {
    let program = command.get_program().to_string_lossy().into_owned();
    let output = command.output().map_err(|err| {
        format!("cannot run {program}: {err} (scripts/install-deps installs the tools the tests use)")
    })?;
    if !output.status.success() {
        let args: Vec<_> = command.get_args().map(|arg| arg.to_string_lossy()).collect();
        return Err(format!(
            "{program} {} failed ({}):\n{}{}",
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// A field of the .deb's control file (`Package`, `Depends`, …).
pub fn deb_field(deb: &Path, field: &str) -> Result<String, Failure> {
    Ok(run(Command::new("dpkg-deb").arg("--field").arg(deb).arg(field))?.trim().to_owned())
}

/// The files (not folders) the .deb installs, as absolute paths, sorted.
pub fn deb_files(deb: &Path) -> Result<Vec<String>, Failure> {
    // `-rwxr-xr-x root/root 4242 2026-01-01 12:00 ./usr/bin/beckon`
    let listing = run(Command::new("dpkg-deb").arg("--contents").arg(deb))?;
    let mut files = Vec::new();
    for line in listing.lines().filter(|line| !line.starts_with('d')) {
        let path = line.split_whitespace().skip(5).collect::<Vec<_>>().join(" ");
        files.push(format!("/{}", path.trim_start_matches("./")));
    }
    files.sort();
    Ok(files)
}

/// A file the .rpm installs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RpmFile {
    /// Its mode as `ls -l` shows it (`-rwxr-xr-x`).
    pub perms: String,
    /// The SHA-256 of its contents, in hex.
    pub sha256: String,
}

/// The files (not folders) the .rpm installs, by path.
pub fn rpm_files(rpm: &Path) -> Result<BTreeMap<String, RpmFile>, Failure> {
    let listing = run(Command::new("rpm")
        .args(["--query", "--package", "--queryformat", "[%{FILEMODES:perms} %{FILEDIGESTS} %{FILENAMES}\\n]"])
        .arg(rpm))?;
    let mut files = BTreeMap::new();
    for line in listing.lines().filter(|line| !line.starts_with('d')) {
        let mut fields = line.splitn(3, ' ');
        let (Some(perms), Some(sha256), Some(path)) = (fields.next(), fields.next(), fields.next()) else {
            return Err(format!("rpm listed {line:?}").into());
        };
        files.insert(path.to_owned(), RpmFile { perms: perms.to_owned(), sha256: sha256.to_owned() });
    }
    Ok(files)
}

/// Unpacks the .deb's files into `dir`, as they would land under `/`.
pub fn unpack_deb(deb: &Path, dir: &Path) -> Result<(), Failure> {
    run(Command::new("dpkg-deb").arg("--extract").arg(deb).arg(dir)).map(drop)
}

/// The SHA-256 of `path`'s contents, in hex.
pub fn sha256(path: &Path) -> Result<String, Failure> {
    let line = run(Command::new("sha256sum").arg(path))?;
    Ok(line.split_whitespace().next().unwrap_or_default().to_owned())
}

/// Whether dpkg holds the package `name` as installed (`dpkg -r` leaves it not installed).
pub fn is_installed(name: &str) -> Result<bool, Failure> {
    let output = Command::new("dpkg-query").args(["--show", "--showformat=${db:Status-Status}", name]).output()?;
    // dpkg-query fails for a package it has never heard of.
    Ok(output.status.success() && String::from_utf8_lossy(&output.stdout).trim() == "installed")
}

/// The .deb installed on this system with `dpkg -i`. Dropping it removes the package again
/// (`dpkg -r`), so a test that fails half-way leaves the system as it found it.
#[derive(Debug)]
pub struct Installed {
    name: String,
    removed: bool,
}

impl Installed {
    /// Installs `deb`; refuses when a package of its name is installed already, which this
    /// test must not replace or remove.
    pub fn install(deb: &Path) -> Result<Installed, Failure> {
        let name = deb_field(deb, "Package")?;
        if is_installed(&name)? {
            return Err(format!(
                "a package named {name} is installed on this system already; this test installs and removes \
                 its own, so remove that one first (dpkg -r {name})"
            )
            .into());
        }
        let installed = Installed { name, removed: false };
        run(privileged("dpkg").arg("--install").arg(deb))?;
        Ok(installed)
    }

    /// Removes the package (`dpkg -r`).
    pub fn remove(mut self) -> Result<(), Failure> {
        self.removed = true;
        run(privileged("dpkg").arg("--remove").arg(&self.name)).map(drop)
    }
}

impl Drop for Installed {
    fn drop(&mut self) {
        if !self.removed {
            let _ = privileged("dpkg").arg("--remove").arg(&self.name).output();
        }
    }
}

/// `program` run as root: directly when the tests run as root (as CI does), otherwise through
/// `sudo -n`, which fails at once rather than asking for a password.
fn privileged(program: &str) -> Command {
    let root =
        Command::new("id").arg("-u").output().is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0");
    if root {
        Command::new(program)
    } else {
        let mut command = Command::new("sudo");
        command.arg("-n").arg(program);
        command
    }
}
