//! Dropping a file's pages from the OS cache, so the next read comes from the disk.

// posix_fadvise is the one way to drop a single file's pages from the cache.
#![allow(unsafe_code)]

use std::fs::File;
use std::path::Path;

use crate::Failure;

/// Flushes `path` and drops its cached pages; a missing file is fine.
#[cfg(target_os = "linux")]
pub fn drop_file(path: &Path) -> Result<(), Failure> {
    use std::os::fd::AsRawFd;
    let Ok(file) = File::open(path) else { return Ok(()) };
    file.sync_all()?;
    // SAFETY: a valid open descriptor and the whole-file range; the call only gives advice.
    let rc = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    if rc != 0 {
        return Err(format!("posix_fadvise failed with {rc}").into());
    }
    Ok(())
}

/// Elsewhere only flushes: the cold figures are then warm ones.
#[cfg(not(target_os = "linux"))]
pub fn drop_file(path: &Path) -> Result<(), Failure> {
    if let Ok(file) = File::open(path) {
        file.sync_all()?;
    }
    Ok(())
}
