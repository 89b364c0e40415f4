//! One owner per data dir: a runtime holds an exclusive lock on `beckon.lock` for as long as it
//! runs, so a second app or a `beckon serve` on the same folder is refused, never a second
//! writer.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The held lock; released when dropped (or when the process dies, even by SIGKILL).
#[derive(Debug)]
pub struct DataDirLock {
    file: File,
    path: PathBuf,
}

impl DataDirLock {
    /// Takes the lock on `dir`, writing `holder` (who we are) into it for the next one to read.
    pub fn acquire(dir: &Path, holder: &str) -> Result<DataDirLock> {
        let path = dir.join("beckon.lock");
        let data_dir_error = |detail: String| Error::DataDir { path: dir.to_path_buf(), detail };
        crate::private_folder::create(dir).map_err(|err| data_dir_error(format!("cannot create the folder: {err}")))?;
        let mut options = OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, crate::private_folder::FILE_MODE);
        let mut file =
            options.open(&path).map_err(|err| data_dir_error(format!("cannot open {}: {err}", path.display())))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                let holder = if holder.is_empty() { "another Beckon".to_owned() } else { holder.to_owned() };
                return Err(Error::DataDirLocked { path: dir.to_path_buf(), holder });
            }
            Err(TryLockError::Error(err)) => {
                return Err(data_dir_error(format!("cannot lock {}: {err}", path.display())));
            }
        }
        let record = format!("{holder} (pid {})", std::process::id());
        let written = file
            .set_len(0)
            .and_then(|()| file.seek(SeekFrom::Start(0)))
            .and_then(|_| file.write_all(record.as_bytes()));
        written.map_err(|err| data_dir_error(format!("cannot write {}: {err}", path.display())))?;
        Ok(DataDirLock { file, path })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for DataDirLock {
    fn drop(&mut self) {
        let _ = self.file.set_len(0);
        let _ = self.file.unlock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_owner_is_refused_with_the_holder_named() {
        let dir = tempfile::tempdir().unwrap();
        let first = DataDirLock::acquire(dir.path(), "beckon-desktop 0.1").unwrap();
        let err = DataDirLock::acquire(dir.path(), "beckon serve").unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, Error::DataDirLocked { .. }), "{text}");
        assert!(text.contains("beckon-desktop 0.1 (pid "), "{text}");
        drop(first);
        DataDirLock::acquire(dir.path(), "beckon serve").unwrap();
    }
}
