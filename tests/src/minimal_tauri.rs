//! The yardstick for the app's idle memory: an empty Tauri app of the same Tauri version, built
//! from the template in `tests/bench/minimal-tauri`. The template is copied under the cargo
//! target folder with the Tauri versions of Beckon's `Cargo.lock` filled in and that lock
//! beside it, so every crate it shares with Beckon is the same version, and it is built with
//! the same release profile into the same target folder, reusing the compiled dependencies.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{Failure, target_dir};

/// The name of the template's package and binary.
pub const NAME: &str = "bench-minimal-tauri";

/// The versions of `tauri` and `tauri-build` a `Cargo.lock` holds.
pub fn tauri_versions(lock: &str) -> Option<(String, String)> {
    let version_of = |name: &str| {
        let entry = format!("[[package]]\nname = \"{name}\"\nversion = \"");
        let start = lock.find(&entry)? + entry.len();
        let end = start + lock[start..].find('"')?;
        Some(lock[start..end].to_owned())
    };
    Some((version_of("tauri")?, version_of("tauri-build")?))
}

/// Generates the app under the target folder, builds it (release) and returns its binary.
pub fn build() -> Result<PathBuf, Failure> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let lock = std::fs::read_to_string(root.join("Cargo.lock"))?;
    let (tauri, tauri_build) = tauri_versions(&lock).ok_or("Cargo.lock names no tauri and tauri-build")?;
    let target = std::path::absolute(target_dir())?;
    let template = root.join("tests/bench/minimal-tauri");
    let crate_dir = target.join(NAME);
    copy_template(&template, &crate_dir)?;
    let manifest = std::fs::read_to_string(template.join("Cargo.toml.in"))?
        .replace("@TAURI_VERSION@", &tauri)
        .replace("@TAURI_BUILD_VERSION@", &tauri_build);
    write_if_changed(&crate_dir.join("Cargo.toml"), manifest.as_bytes())?;
    // tauri-build watches this folder: missing, it would have cargo rebuild the app every time.
    std::fs::create_dir_all(crate_dir.join("capabilities"))?;
    // Cargo keeps the locked version of every crate still used and drops the rest.
    std::fs::write(crate_dir.join("Cargo.lock"), lock)?;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--release"])
        .current_dir(&crate_dir)
        .env("CARGO_TARGET_DIR", &target)
        .status()
        .map_err(|err| format!("cannot run cargo: {err}"))?;
    if !status.success() {
        return Err(format!("building the minimal Tauri app failed: {status}").into());
    }
    Ok(target.join("release").join(NAME))
}

/// Copies the template folder `from` (but its manifest's template) to `to`, over what an
/// earlier run left there.
fn copy_template(from: &Path, to: &Path) -> Result<(), Failure> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let destination = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_template(&entry.path(), &destination)?;
        } else if entry.file_name() != "Cargo.toml.in" {
            write_if_changed(&destination, &std::fs::read(entry.path())?)?;
        }
    }
    Ok(())
}

/// Writes `contents` to `path` unless it holds them already: a file left alone keeps its time,
/// so cargo does not rebuild the app for nothing.
fn write_if_changed(path: &Path, contents: &[u8]) -> Result<(), Failure> {
    if std::fs::read(path).ok().as_deref() != Some(contents) {
        std::fs::write(path, contents)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::tauri_versions;

    #[test]
    fn the_tauri_versions_are_read_from_the_lock() {
        let lock = "[[package]]\nname = \"tauri-utils\"\nversion = \"2.9.3\"\n\n\
                    [[package]]\nname = \"tauri\"\nversion = \"2.11.6\"\n\n\
                    [[package]]\nname = \"tauri-build\"\nversion = \"2.6.3\"\n";
        assert_eq!(tauri_versions(lock), Some(("2.11.6".into(), "2.6.3".into())));
        assert_eq!(tauri_versions("[[package]]\nname = \"serde\"\nversion = \"1.0.0\"\n"), None);
    }
}
