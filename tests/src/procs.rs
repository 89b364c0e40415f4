//! What `/proc` says about the app's processes: which they are, when they started, and how
//! much memory they hold.

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// One process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proc {
    /// Its id.
    pub pid: u32,
    /// Its parent's id.
    pub ppid: u32,
    /// Its command name (at most 15 characters).
    pub name: String,
    /// When it started, in clock ticks after boot.
    pub start_ticks: u64,
}

/// Reads a `/proc/<pid>/stat` line (the name, in parentheses, may hold spaces and parentheses).
pub fn parse_stat(line: &str) -> Option<Proc> {
    let open = line.find('(')?;
    let close = line.rfind(')')?;
    let pid = line[..open].trim().parse().ok()?;
    let name = line[open + 1..close].to_owned();
    // After the name: state (field 3), ppid (4), … starttime (22).
    let rest: Vec<&str> = line[close + 1..].split_whitespace().collect();
    let ppid = rest.get(1)?.parse().ok()?;
    let start_ticks = rest.get(19)?.parse().ok()?;
    Some(Proc { pid, ppid, name, start_ticks })
}

/// A `kB` figure from `/proc/<pid>/status` or `smaps_rollup` (`VmRSS:`, `Pss:`), in bytes.
pub fn parse_kib(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find(|line| line.starts_with(key))?;
    let kib: u64 = line[key.len()..].split_whitespace().next()?.parse().ok()?;
    Some(kib * 1024)
}

/// Every process now running.
pub fn all() -> Vec<Proc> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|entry| std::fs::read_to_string(entry.path().join("stat")).ok())
        .filter_map(|line| parse_stat(&line))
        .collect()
}

/// The process running `exe_name` whose environment holds `variable` (`NAME=value`).
pub fn find(exe_name: &str, variable: &str) -> Option<Proc> {
    all().into_iter().find(|proc| {
        let dir = Path::new("/proc").join(proc.pid.to_string());
        let exe_matches = std::fs::read_link(dir.join("exe"))
            .is_ok_and(|exe| exe.file_name().is_some_and(|name| name.to_string_lossy() == exe_name));
        exe_matches
            && std::fs::read(dir.join("environ"))
                .is_ok_and(|env| env.split(|b| *b == 0).any(|entry| entry == variable.as_bytes()))
    })
}

/// `root` and every process below it.
pub fn tree(root: &Proc) -> Vec<Proc> {
    let everyone = all();
    let mut found = vec![root.clone()];
    let mut index = 0;
    while index < found.len() {
        let parent = found[index].pid;
        found.extend(everyone.iter().filter(|p| p.ppid == parent).cloned());
        index += 1;
    }
    found
}

/// Resident and proportional set sizes of `pid`, in bytes.
pub fn memory(pid: u32) -> Option<(u64, u64)> {
    let dir = Path::new("/proc").join(pid.to_string());
    let rss = parse_kib(&std::fs::read_to_string(dir.join("status")).ok()?, "VmRSS:")?;
    let pss = parse_kib(&std::fs::read_to_string(dir.join("smaps_rollup")).ok()?, "Pss:")?;
    Some((rss, pss))
}

/// When `proc` started, as wall-clock time.
pub fn started_at(proc: &Proc) -> Option<SystemTime> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let boot: u64 = stat.lines().find_map(|line| line.strip_prefix("btime "))?.trim().parse().ok()?;
    let ticks_per_second: u64 = std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|out| String::from_utf8_lossy(&out.stdout).trim().parse().ok())
        .unwrap_or(100);
    let after_boot = Duration::from_millis(proc.start_ticks * 1000 / ticks_per_second);
    Some(UNIX_EPOCH + Duration::from_secs(boot) + after_boot)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_with_odd_names_parse() {
        let line = "4242 (Web Content (x)) S 4000 4242 4000 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 12 0 987654 1000 200";
        assert_eq!(
            parse_stat(line),
            Some(Proc { pid: 4242, ppid: 4000, name: "Web Content (x)".into(), start_ticks: 987_654 })
        );
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn kib_figures_become_bytes() {
        let status = "Name:\tbeckon\nVmPeak:\t  900 kB\nVmRSS:\t  123456 kB\n";
        assert_eq!(parse_kib(status, "VmRSS:"), Some(123_456 * 1024));
        assert_eq!(parse_kib(status, "Pss:"), None);
    }

    #[test]
    fn this_process_is_found_in_its_own_tree() {
        let me = all().into_iter().find(|p| p.pid == std::process::id()).expect("this process");
        assert!(tree(&me).iter().any(|p| p.pid == me.pid));
        assert!(memory(me.pid).is_some_and(|(rss, pss)| rss > 0 && pss > 0));
        assert!(started_at(&me).is_some_and(|at| at <= SystemTime::now()));
    }
}
