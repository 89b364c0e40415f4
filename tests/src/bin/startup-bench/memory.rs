//! What a process tree holds in memory, process by process.

use beckon_e2e::procs::{self, Proc};
use serde_json::{Value, json};

/// One process's memory.
#[derive(Debug, Clone)]
pub struct ProcessMemory {
    /// Its command name.
    pub name: String,
    /// Resident set size, in bytes.
    pub rss: u64,
    /// Proportional set size, in bytes.
    pub pss: u64,
}

/// The memory of `root` and every process below it.
pub fn of_tree(root: &Proc) -> Vec<ProcessMemory> {
    procs::tree(root)
        .into_iter()
        .filter_map(|p| procs::memory(p.pid).map(|(rss, pss)| ProcessMemory { name: p.name, rss, pss }))
        .collect()
}

/// Total RSS and PSS, in bytes.
pub fn totals(processes: &[ProcessMemory]) -> (u64, u64) {
    processes.iter().fold((0, 0), |(rss, pss), p| (rss + p.rss, pss + p.pss))
}

pub fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// `value` rounded to tenths.
pub fn tenths(value: f64) -> f64 {
    (value * 10.0).round() / 10.0
}

/// The totals and each process, in MiB.
pub fn json(processes: &[ProcessMemory]) -> Value {
    let (rss, pss) = totals(processes);
    json!({
        "rss_mib": tenths(mib(rss)),
        "pss_mib": tenths(mib(pss)),
        "processes": processes
            .iter()
            .map(|p| json!({"name": p.name, "rss_mib": tenths(mib(p.rss)), "pss_mib": tenths(mib(p.pss))}))
            .collect::<Vec<_>>(),
    })
}

/// Prints each process, indented by `indent`, its RSS and PSS in the columns at `width`.
pub fn print_processes(processes: &[ProcessMemory], indent: usize, width: usize) {
    for p in processes {
        println!("{:indent$}{:<width$} {:>10.1} {:>10.1}", "", p.name, mib(p.rss), mib(p.pss));
    }
}
