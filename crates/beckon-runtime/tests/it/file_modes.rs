//! The data folder is the person's alone: Beckon makes it 0700 and its files 0600, and at start
//! it takes away what an older Beckon, or a generous umask, let others read.

#![cfg(unix)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::support::*;

fn mode(path: &Path) -> u32 {
    fs::symlink_metadata(path).unwrap_or_else(|err| panic!("{}: {err}", path.display())).permissions().mode() & 0o777
}

fn loosen(path: &Path, mode: u32) {
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

#[tokio::test]
async fn a_new_data_folder_is_private_and_an_old_one_is_tightened_at_start() {
    let base = tempfile::tempdir().unwrap();
    let dir = base.path().join("data");
    let session = {
        let (beckon, notifier) = start(&dir).await;
        let session = beckon.start_session("poet", "a poem about fog").await.unwrap();
        pending_in(&notifier, session).await;
        // Looked at while running: SQLite may remove the WAL and shared-memory files at the last close.
        assert_eq!(mode(&dir), 0o700, "the data folder");
        for name in ["beckon.db", "beckon.db-wal", "beckon.db-shm", "beckon.lock"] {
            assert_eq!(mode(&dir.join(name)), 0o600, "{name}");
        }
        beckon.shutdown().await;
        session
    };

    // As an older Beckon left them: readable by everyone, a workspace with a file in it.
    let workspace = dir.join("workspaces").join(session.to_string());
    fs::create_dir_all(workspace.join("notes")).unwrap();
    fs::write(workspace.join("notes/draft.md"), "private").unwrap();
    loosen(&dir, 0o755);
    for name in ["beckon.db", "beckon.db-wal", "beckon.db-shm", "beckon.lock"] {
        if !dir.join(name).exists() {
            // An empty WAL or shared-memory file is what SQLite itself leaves after a crash.
            fs::write(dir.join(name), "").unwrap();
        }
        loosen(&dir.join(name), 0o644);
    }
    for path in [dir.join("workspaces"), workspace.clone(), workspace.join("notes")] {
        loosen(&path, 0o755);
    }
    loosen(&workspace.join("notes/draft.md"), 0o644);

    let (beckon, _) = start(&dir).await;
    assert_eq!(mode(&dir), 0o700, "the data folder");
    for name in ["beckon.db", "beckon.db-wal", "beckon.db-shm", "beckon.lock"] {
        assert_eq!(mode(&dir.join(name)), 0o600, "{name}");
    }
    for path in [dir.join("workspaces"), workspace.clone(), workspace.join("notes")] {
        assert_eq!(mode(&path), 0o700, "{}", path.display());
    }
    assert_eq!(mode(&workspace.join("notes/draft.md")), 0o600);
    beckon.shutdown().await;
}
