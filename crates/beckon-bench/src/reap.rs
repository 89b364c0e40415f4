//! Waiting for a child process while watching its peak resident memory.
//!
//! The kernel's own account (`wait4`'s `ru_maxrss`) is no good here: a child started by
//! `posix_spawn` (or `fork`) inherits, at `exec`, the high-water mark of the memory it was
//! spawned from, so it reports the bench's own peak whenever that is the larger. The child's
//! `VmHWM` in `/proc`, read after `exec`, is its alone; it is read every millisecond until the
//! child exits, so at most the last millisecond of its life goes unseen.

#![allow(unsafe_code)]

use std::process::Child;
use std::time::Duration;

use crate::Failure;

/// How often the child's high-water mark is read.
const POLL: Duration = Duration::from_millis(1);

/// Waits for `child` to exit: whether it succeeded, and the most it was seen to hold resident
/// (MiB).
pub fn reap(child: Child) -> Result<(bool, f64), Failure> {
    let status_path = format!("/proc/{}/status", child.id());
    let pid = libc::pid_t::try_from(child.id())?;
    let mut peak_kib = 0.0_f64;
    let mut status: libc::c_int = 0;
    loop {
        // Gone (or a zombie without memory) once it has exited; the loop ends on the reap.
        if let Some(kib) = std::fs::read_to_string(&status_path).ok().as_deref().and_then(high_water_kib) {
            peak_kib = peak_kib.max(kib);
        }
        // SAFETY: `status` is valid for writes for the length of the call, a null `rusage` is
        // allowed, and `pid` is this process's own child, not yet waited for.
        let reaped = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, std::ptr::null_mut()) };
        if reaped == pid {
            break;
        }
        if reaped < 0 {
            let err = std::io::Error::last_os_error();
            if err.kind() != std::io::ErrorKind::Interrupted {
                return Err(err.into());
            }
        }
        std::thread::sleep(POLL);
    }
    let succeeded = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    Ok((succeeded, peak_kib / 1024.0))
}

/// The `VmHWM` line of a `/proc/<pid>/status` text, in KiB.
fn high_water_kib(status: &str) -> Option<f64> {
    status.lines().find_map(|line| line.strip_prefix("VmHWM:"))?.trim().trim_end_matches("kB").trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_high_water_mark_is_read_from_a_status_text() {
        assert_eq!(high_water_kib("Name:\tbeckon\nVmHWM:\t   9720 kB\nVmRSS:\t 9000 kB\n"), Some(9720.0));
        assert_eq!(high_water_kib("Name:\tbeckon\nState:\tZ (zombie)\n"), None);
    }

    #[test]
    fn a_child_is_reaped_with_its_exit_and_a_peak() {
        let child = std::process::Command::new("sh").args(["-c", "exit 3"]).spawn().unwrap();
        let (succeeded, _) = reap(child).unwrap();
        assert!(!succeeded);
        let child = std::process::Command::new("sleep").arg("0.05").spawn().unwrap();
        let (succeeded, peak) = reap(child).unwrap();
        assert!(succeeded);
        assert!(peak > 0.0 && peak < 64.0, "{peak}");
    }
}
