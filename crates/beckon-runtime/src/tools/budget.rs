//! How much of the disk a workspace may take: the agent's `max_workspace` in bytes of files,
//! and a fixed number of files and folders (each costs the disk something however small it
//! is). A model looping on `write_file` is refused at the limit instead of filling the disk.

use std::fs;
use std::io::{self, ErrorKind};
use std::path::Path;

use super::workspace::WorkspaceError;

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

/// Refuses a write of `new_len` bytes to `target` (which may not exist yet) that would take
/// the workspace past `limit` bytes or, for a new file, past [`MAX_ENTRIES`].
pub(crate) fn check_room(
    root: &Path,
    target: &Path,
    relative: &str,
    new_len: u64,
    limit: u64,
) -> Result<(), WorkspaceError> {
    let usage = usage(root).map_err(|source| WorkspaceError::Io {
        action: "measure the workspace for",
        path: relative.to_owned(),
        source,
    })?;
    let replaced = match target.symlink_metadata() {
        Ok(meta) if meta.is_file() => Some(meta.len()),
        Ok(_) => Some(0),
        Err(_) => None,
    };
    let after = usage.bytes.saturating_sub(replaced.unwrap_or(0)).saturating_add(new_len);
    if after > limit {
        return Err(WorkspaceError::Full { path: relative.to_owned(), used: usage.bytes, size: new_len, limit });
    }
    if replaced.is_none() && usage.entries >= MAX_ENTRIES {
        return Err(WorkspaceError::TooManyEntries { path: relative.to_owned() });
    }
    Ok(())
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

    #[test]
    fn room_is_what_the_write_adds_less_what_it_replaces() {
        let root = tempfile::tempdir().unwrap();
        fs::write(root.path().join("old.txt"), "x".repeat(900)).unwrap();
        let old = root.path().join("old.txt");
        let new = root.path().join("new.txt");
        assert!(check_room(root.path(), &old, "old.txt", 1000, 1000).is_ok(), "replacing 900 with 1000");
        assert!(check_room(root.path(), &new, "new.txt", 100, 1000).is_ok());
        let err = check_room(root.path(), &new, "new.txt", 101, 1000).unwrap_err();
        assert!(matches!(err, WorkspaceError::Full { used: 900, size: 101, limit: 1000, .. }), "{err}");
    }

    #[test]
    fn a_full_count_of_entries_refuses_new_files_but_not_replacements() {
        let root = tempfile::tempdir().unwrap();
        for n in 0..MAX_ENTRIES {
            fs::File::create(root.path().join(n.to_string())).unwrap();
        }
        let err = check_room(root.path(), &root.path().join("one-more"), "one-more", 0, u64::MAX).unwrap_err();
        assert!(matches!(err, WorkspaceError::TooManyEntries { .. }), "{err}");
        assert!(check_room(root.path(), &root.path().join("7"), "7", 10, u64::MAX).is_ok());
    }
}
