//! The same pause/resume workload on LangGraph with its SQLite checkpointer
//! (`langgraph/langgraph_hitl.py`), run in a virtual environment the bench creates on first
//! use, so its figures sit beside Beckon's from the same machine and moment.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::Failure;

/// The versions the comparison was written against.
const PACKAGES: [&str; 2] = ["langgraph==1.2.22", "langgraph-checkpoint-sqlite==3.1.2"];

/// The workload script.
fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("langgraph/langgraph_hitl.py")
}

/// A Python with LangGraph installed, in `cache/langgraph-venv`, created when missing.
fn python(cache: &Path) -> Result<PathBuf, Failure> {
    let venv = cache.join("langgraph-venv");
    let python = venv.join("bin/python");
    let ready = venv.join("ready");
    if ready.exists() {
        return Ok(python);
    }
    eprintln!("setting up LangGraph in a virtual environment (once)…");
    let _ = std::fs::remove_dir_all(&venv);
    let created = Command::new("python3").args(["-m", "venv"]).arg(&venv).stdout(Stdio::null()).status();
    if !created.is_ok_and(|status| status.success()) {
        return Err("python3 with the venv module is not available".into());
    }
    let installed = Command::new(&python)
        .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check"])
        .args(PACKAGES)
        .status()?;
    if !installed.success() {
        return Err(format!("pip could not install {}", PACKAGES.join(" ")).into());
    }
    std::fs::write(ready, "")?;
    Ok(python)
}

/// Runs the workload: `cycles` sequential pause/resume cycles, and listing `list_big` paused
/// threads. Returns its JSON report.
pub fn run(cache: &Path, cycles: usize, list_big: usize) -> Result<Value, Failure> {
    let python = python(cache)?;
    let output = Command::new(python)
        .arg(script())
        .args(["--n", &cycles.to_string(), "--list-big", &list_big.to_string(), "--variants", "0"])
        .arg("--cache-dir")
        .arg(cache.join("langgraph"))
        .stderr(Stdio::inherit())
        .output()?;
    if !output.status.success() {
        return Err(format!("the LangGraph workload failed ({})", output.status).into());
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text.lines().rev().find(|line| line.starts_with('{')).ok_or("the LangGraph workload printed no JSON")?;
    Ok(serde_json::from_str(line)?)
}

/// A figure from the report, by path (`["cycle", "median_ms"]`).
pub fn figure(report: &Value, path: &[&str]) -> Option<f64> {
    path.iter().try_fold(report, |value, key| value.get(key))?.as_f64()
}

/// LangGraph's checkpointer transactions in one cycle (its pause's and its resume's `put` and
/// `put_writes`, each a commit), when the report counted them.
pub fn commits_per_cycle(report: &Value) -> Option<f64> {
    let counted = report.get("txns_per_cycle")?.as_object()?;
    let phases = counted.values().map(|phase| Some(phase.as_object()?.values().filter_map(Value::as_f64).sum::<f64>()));
    phases.sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_are_read_by_path() {
        let report = serde_json::json!({"cycle": {"median_ms": 21.4}, "list_pending": {"10000": {"checkpointer_list_all": {"median_ms": 670.0}}}});
        assert_eq!(figure(&report, &["cycle", "median_ms"]), Some(21.4));
        assert_eq!(figure(&report, &["list_pending", "10000", "checkpointer_list_all", "median_ms"]), Some(670.0));
        let counted = serde_json::json!({"txns_per_cycle": {"pause": {"put": 3, "put_writes": 3}, "resume": {"put": 2, "put_writes": 3}}});
        assert_eq!(commits_per_cycle(&counted), Some(11.0));
        assert_eq!(commits_per_cycle(&report), None);
        assert_eq!(figure(&report, &["cycle", "p99_ms"]), None);
    }

    #[test]
    fn the_script_is_there() {
        assert!(script().exists());
    }
}
