//! Waiting for a child process with the kernel's account of what it used: its peak resident
//! memory, exact for that one process (unlike `RUSAGE_CHILDREN`, the most of any child ever
//! waited for).

#![allow(unsafe_code)]

use crate::Failure;

/// Waits for child `pid` to exit: whether it succeeded, and the most it held resident (MiB).
pub fn reap(pid: u32) -> Result<(bool, f64), Failure> {
    let pid = libc::pid_t::try_from(pid)?;
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero `rusage` is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `status` and `usage` are valid for writes for the length of the call; `pid`
        // is this process's own child, not yet waited for.
        let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if reaped == pid {
            break;
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(err.into());
        }
    }
    let succeeded = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    // Linux counts ru_maxrss in KiB.
    Ok((succeeded, usage.ru_maxrss as f64 / 1024.0))
}
