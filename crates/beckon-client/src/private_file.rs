//! Small files only their owner may read (the gateway's token, the settings with API keys),
//! replaced whole so that a crash leaves the old contents or the new, never a part.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

/// Writes `contents` to `path` with mode 0600: into a temporary file beside it, flushed to
/// disk, renamed over `path`, and the rename itself flushed. Creates the folder if needed.
pub fn write(path: &Path, contents: &[u8]) -> io::Result<()> {
    let dir = path.parent().filter(|dir| !dir.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().ok_or_else(|| io::Error::other(format!("{} names no file", path.display())))?;
    crate::private_folder::create(dir)?;
    let temp = dir.join(format!(".{}.tmp", name.to_string_lossy()));
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(&temp)?;
    // A temporary file left by an earlier crash keeps its old mode; `mode` only sets new ones.
    #[cfg(unix)]
    fs::set_permissions(&temp, std::os::unix::fs::PermissionsExt::from_mode(0o600))?;
    file.write_all(contents)?;
    file.sync_all()?;
    fs::rename(&temp, path)?;
    // The new name is durable only once the folder is.
    #[cfg(unix)]
    fs::File::open(dir)?.sync_all()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn the_file_is_written_whole_and_private() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested").join("secret.json");
        write(&path, b"{\"token\": \"abc\"}").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"{\"token\": \"abc\"}");
        #[cfg(unix)]
        assert_eq!(mode(&path), 0o600);
        let names: Vec<_> = fs::read_dir(path.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["secret.json"], "no temporary file is left behind");
    }

    #[cfg(unix)]
    #[test]
    fn a_file_readable_by_others_is_replaced_by_a_private_one() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        // A temporary file an earlier crash left readable by others.
        let stale = dir.path().join(".settings.json.tmp");
        fs::write(&stale, "half").unwrap();
        fs::set_permissions(&stale, fs::Permissions::from_mode(0o644)).unwrap();
        write(&path, b"new").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(mode(&path), 0o600);
        assert!(!stale.exists());
    }

    #[test]
    fn a_path_without_a_file_name_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let err = write(&dir.path().join(".."), b"x").unwrap_err();
        assert!(err.to_string().contains("names no file"), "{err}");
    }
}
