//! How much of the disk a workspace may take: the agent's `max_workspace` in bytes of files,
//! and a fixed number of files and folders (each costs the disk something however small it
//! is), measured here. A model looping on `write_file` is refused at the limit instead of
//! filling the disk: the workspace checks each write against it (`check_room`).

use std::fs;
use std::io::{self, ErrorKind};
use std::path::Path;

/// Most files and folders a workspace may hold.
pub(crate) const MAX_ENTRIES: u64 = 10_000;

/// What a workspace holds now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Usage {
    /// Bytes of its regular files.
    pub(crate) bytes: u64,
    /// Its files, folders and links (the workspace folder itself not counted).
    pub(crate) entries: u64,
}

/// Adds up a workspace, never following a symbolic link (a link costs its own entry only).
/// Stops counting once past [`MAX_ENTRIES`]: the answer is then already "full".
pub(crate) fn usage(root: &Path) -> io::Result<Usage> {
    let mut usage = Usage::default();
    let mut folders = vec![root.to_owned()];
    while let Some(folder) = folders.pop() {
        let entries = match fs::read_dir(&folder) {
            Ok(entries) => entries,
            // Removed while we looked: it holds nothing now.
            Err(error) if error.kind() == ErrorKind::NotFound => continue,
            Err(error) => return Err(error),
        };
        for entry in entries {
            let entry = entry?;
            let meta = match entry.path().symlink_metadata() {
                Ok(meta) => meta,
                Err(error) if error.kind() == ErrorKind::NotFound => continue,
                Err(error) => return Err(error),
            };
            usage.entries += 1;
            if meta.is_dir() {
                folders.push(entry.path());
            } else if meta.is_file() {
                usage.bytes = usage.bytes.saturating_add(meta.len());
            }
            if usage.entries > MAX_ENTRIES {
                return Ok(usage);
            }
        }
    }
    Ok(usage)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_counts_files_and_folders_and_never_follows_a_link() {
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("huge.bin"), vec![0u8; 50_000]).unwrap();
        let root = tempfile::tempdir().unwrap();
        fs::create_dir_all(root.path().join("a/b")).unwrap();
        fs::write(root.path().join("one.txt"), "12345").unwrap();
        fs::write(root.path().join("a/b/two.txt"), "123").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.path().join("away")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("huge.bin"), root.path().join("a/huge")).unwrap();
        assert_eq!(usage(root.path()).unwrap(), Usage { bytes: 8, entries: 6 });
    }
}
