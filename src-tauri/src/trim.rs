//! Giving back what drawing the window took, once it was released. WebKit keeps its network
//! process for the app's whole life (it would make a new one for the next window anyway), and
//! the app's process keeps the pages of WebKit's, the JavaScript engine's and the renderer's
//! code it ran resident although nothing runs them while Beckon waits in the tray. So, after a
//! release: the network process is asked to stop (WebKit starts a new one with the next
//! window), the allocator returns freed memory, and the kernel is told that the file-backed
//! pages (code and read-only data, which it reads back from the file when they are next used)
//! will not be needed soon.
//!
//! The three calls have no safe wrapper in std. This module and `drawing`'s one write of the
//! environment are the app's only unsafe code, each call with why it cannot harm what Beckon
//! holds.
#![allow(unsafe_code)]

/// Whether a `/proc/<pid>/maps` line is a code mapping (`r-xp`) of the file `exe`: its range.
pub fn code_of(line: &str, exe: &str) -> Option<(usize, usize)> {
    let range = file_backed(line)?;
    let mut fields = line.split_whitespace();
    let permissions = fields.nth(1)?;
    let path = fields.nth(3)?;
    (permissions == "r-xp" && path == exe).then_some(range)
}

/// Gives back what start-up took and will not need again: freed heap memory, and the pages of
/// Beckon's own code, most of which only start-up ran (opening the database, its migrations,
/// starting the gateway). Code that runs again is mapped back from the file as it runs. Only
/// code pages are dropped: they are never written, so nothing is lost.
#[cfg(target_os = "linux")]
pub fn after_start() -> u64 {
    // SAFETY: returns freed heap memory to the system; no pointer is involved.
    unsafe { libc::malloc_trim(0) };
    let Ok(exe) = std::fs::read_link("/proc/self/exe") else { return 0 };
    let exe = exe.to_string_lossy();
    let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else { return 0 };
    let mut dropped = 0;
    for (start, end) in maps.lines().filter_map(|line| code_of(line, &exe)) {
        // SAFETY: a private, read-only, executable mapping of a file: its pages are the file's
        // and were never written, so dropping them changes nothing; they are mapped again from
        // the file (usually still in the page cache) when next run.
        if unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_DONTNEED) } == 0 {
            dropped += (end - start) as u64;
        }
    }
    dropped
}

/// Elsewhere the system manages it.
#[cfg(not(target_os = "linux"))]
pub fn after_start() -> u64 {
    0
}

/// What the trim gave back: the network processes stopped and the bytes of mappings advised.
#[derive(Debug, Default)]
pub struct Trimmed {
    pub stopped: usize,
    pub advised_bytes: u64,
}

/// One line of `/proc/<pid>/maps`: its address range, and whether it is backed by a file (a
/// path, not `[heap]`, `[stack]` or nothing).
pub fn file_backed(line: &str) -> Option<(usize, usize)> {
    let mut fields = line.split_whitespace();
    let range = fields.next()?;
    let path = fields.nth(4)?;
    if !path.starts_with('/') {
        return None;
    }
    let (start, end) = range.split_once('-')?;
    let (start, end) = (usize::from_str_radix(start, 16).ok()?, usize::from_str_radix(end, 16).ok()?);
    (end > start).then_some((start, end))
}

/// Whether `/proc/<pid>/stat`'s `line` is a child of `parent` running WebKit's network process.
pub fn network_process_of(line: &str, parent: u32) -> Option<u32> {
    let open = line.find('(')?;
    let close = line.rfind(')')?;
    let pid = line[..open].trim().parse().ok()?;
    let name = &line[open + 1..close];
    let ppid: u32 = line[close + 1..].split_whitespace().nth(1)?.parse().ok()?;
    (ppid == parent && name.starts_with("WebKitNetwork")).then_some(pid)
}

/// Gives back what the released window took; with `stop_network`, WebKit's network process too.
#[cfg(target_os = "linux")]
pub fn after_release(stop_network: bool) -> Trimmed {
    let mut trimmed = Trimmed::default();
    let me = std::process::id();
    if stop_network && let Ok(entries) = std::fs::read_dir("/proc") {
        for entry in entries.flatten() {
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
            if let Some(pid) = network_process_of(&stat, me)
                && let Ok(pid) = i32::try_from(pid)
            {
                // SAFETY: a plain signal to a child process of ours.
                if unsafe { libc::kill(pid, libc::SIGTERM) } == 0 {
                    trimmed.stopped += 1;
                }
            }
        }
    }
    // SAFETY: returns freed heap memory to the system; no pointer is involved.
    unsafe { libc::malloc_trim(0) };
    if let Ok(maps) = std::fs::read_to_string("/proc/self/maps") {
        for (start, end) in maps.lines().filter_map(file_backed) {
            // SAFETY: MADV_PAGEOUT never changes a mapping's contents: a page it reclaims is
            // read back from its file (or swap) when next touched.
            if unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_PAGEOUT) } == 0 {
                trimmed.advised_bytes += (end - start) as u64;
            }
        }
    }
    trimmed
}

/// Elsewhere the system's own WebView manages its processes.
#[cfg(not(target_os = "linux"))]
pub fn after_release(_stop_network: bool) -> Trimmed {
    Trimmed::default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_backed_mappings_are_read_from_the_maps() {
        let code =
            "7f2a1c000000-7f2a1c200000 r-xp 00000000 fd:01 1234   /usr/lib/x86_64-linux-gnu/libwebkit2gtk-4.1.so.0";
        assert_eq!(file_backed(code), Some((0x7f2a_1c00_0000, 0x7f2a_1c20_0000)));
        assert_eq!(file_backed("55d0c0000000-55d0c0021000 rw-p 00000000 00:00 0          [heap]"), None);
        assert_eq!(file_backed("7f2a1c000000-7f2a1c200000 rw-p 00000000 00:00 0 "), None);
        assert_eq!(file_backed("garbage"), None);
    }

    #[test]
    fn only_code_of_the_executable_is_dropped_after_start() {
        let exe = "/usr/bin/beckon-desktop";
        let code = "55d0c0000000-55d0c0400000 r-xp 00200000 fd:01 99 /usr/bin/beckon-desktop";
        assert_eq!(code_of(code, exe), Some((0x55d0_c000_0000, 0x55d0_c040_0000)));
        let relocated = "55d0c0400000-55d0c0500000 r--p 00600000 fd:01 99 /usr/bin/beckon-desktop";
        assert_eq!(code_of(relocated, exe), None, "read-only data may hold relocations");
        let library = "7f2a1c000000-7f2a1c200000 r-xp 00000000 fd:01 12 /usr/lib/libgtk-3.so.0";
        assert_eq!(code_of(library, exe), None);
    }

    #[test]
    fn only_our_network_process_is_found() {
        let ours = "4242 (WebKitNetworkPr) S 100 4242 4242 0 -1 4194560 0 0 0 0 0 0";
        assert_eq!(network_process_of(ours, 100), Some(4242));
        assert_eq!(network_process_of(ours, 101), None, "another app's");
        assert_eq!(network_process_of("4243 (WebKitWebProces) S 100 4243", 100), None);
    }
}
