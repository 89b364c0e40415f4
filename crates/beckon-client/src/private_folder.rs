//! The data folder and everything in it are the person's alone: it holds every question and
//! answer, the callback secret, API keys and the gateway's token, and the agents' workspaces.
//! Folders are made 0700 and files 0600 when Beckon creates them; at start, what an older
//! Beckon (or a generous umask) left readable by others is tightened.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The mode of a folder Beckon creates.
pub const FOLDER_MODE: u32 = 0o700;
/// The mode of a file Beckon creates.
pub const FILE_MODE: u32 = 0o600;

/// Creates `dir` and its missing parents; a folder it creates gets mode 0700.
pub fn create(dir: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, FOLDER_MODE);
    builder.create(dir)
}

/// Takes every permission for others and the group off `path` alone (not what is below it),
/// keeping the owner's.
pub fn owner_alone(path: &Path) -> io::Result<()> {
    owner_only(path, &fs::symlink_metadata(path)?)
}

/// Takes every permission for others and the group off `dir` and everything below it, keeping
/// the owner's (an agent's script stays executable). Links are not followed, and an entry that
/// cannot be changed does not stop the rest: each failure is returned with its path.
pub fn tighten(dir: &Path) -> Vec<(PathBuf, io::Error)> {
    let mut failures = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(path) = pending.pop() {
        let meta = match fs::symlink_metadata(&path) {
            Ok(meta) => meta,
            // Gone since it was listed (a workspace removed meanwhile): nothing to tighten.
            Err(error) if error.kind() == io::ErrorKind::NotFound => continue,
            Err(error) => {
                failures.push((path, error));
                continue;
            }
        };
        if meta.file_type().is_symlink() {
            continue;
        }
        if let Err(error) = owner_only(&path, &meta) {
            failures.push((path.clone(), error));
        }
        if meta.is_dir() {
            match fs::read_dir(&path) {
                Ok(entries) => pending.extend(entries.filter_map(|entry| entry.ok().map(|entry| entry.path()))),
                Err(error) => failures.push((path, error)),
            }
        }
    }
    failures
}

#[cfg(unix)]
fn owner_only(path: &Path, meta: &fs::Metadata) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mode = meta.permissions().mode() & 0o7777;
    if mode & 0o077 == 0 {
        return Ok(());
    }
    fs::set_permissions(path, fs::Permissions::from_mode(mode & 0o700))
}

#[cfg(not(unix))]
fn owner_only(_path: &Path, _meta: &fs::Metadata) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn mode(path: &Path) -> u32 {
        fs::symlink_metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn created_folders_are_private() {
        let base = tempfile::tempdir().unwrap();
        let dir = base.path().join("a/b");
        create(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&base.path().join("a")), 0o700);
        create(&dir).unwrap();
    }

    #[test]
    fn tightening_removes_what_others_may_do_and_keeps_the_owners_rights() {
        let base = tempfile::tempdir().unwrap();
        let root = base.path().join("data");
        fs::create_dir_all(root.join("workspaces/s1/src")).unwrap();
        fs::write(root.join("beckon.db"), "").unwrap();
        fs::write(root.join("workspaces/s1/src/run.sh"), "").unwrap();
        let outside = base.path().join("shared.txt");
        fs::write(&outside, "").unwrap();
        std::os::unix::fs::symlink(&outside, root.join("workspaces/s1/link")).unwrap();
        for (path, mode) in [
            (root.clone(), 0o755),
            (root.join("beckon.db"), 0o644),
            (root.join("workspaces"), 0o777),
            (root.join("workspaces/s1/src"), 0o755),
            (root.join("workspaces/s1/src/run.sh"), 0o755),
            (outside.clone(), 0o644),
        ] {
            fs::set_permissions(&path, fs::Permissions::from_mode(mode)).unwrap();
        }

        assert!(tighten(&root).is_empty());

        assert_eq!(mode(&root), 0o700);
        assert_eq!(mode(&root.join("beckon.db")), 0o600);
        assert_eq!(mode(&root.join("workspaces")), 0o700);
        assert_eq!(mode(&root.join("workspaces/s1/src")), 0o700);
        assert_eq!(mode(&root.join("workspaces/s1/src/run.sh")), 0o700, "the owner may still run it");
        assert_eq!(mode(&outside), 0o644, "a link is not followed out of the folder");
    }
}
