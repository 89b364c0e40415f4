//! The official Python MCP SDK in a venv of its own, for tests that run Python MCP clients and
//! servers (network access to PyPI the first time).

use std::path::{Path, PathBuf};

/// The Python SDK version the tests run against.
const MCP_SDK: &str = "mcp==2.3.0";

/// A venv with the SDK, made once and kept under `target/tmp`. A lock file serialises test
/// processes (nextest runs each test in its own), and the venv is made in a temporary folder and
/// renamed into place, so an interrupted run never leaves a broken one behind.
pub fn venv_python() -> PathBuf {
    let base = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let venv = base.join(format!("python-{}", MCP_SDK.replace("==", "-")));
    let python = venv.join("bin").join("python");
    let lock = std::fs::File::create(base.join("python-venv.lock")).unwrap();
    lock.lock().unwrap();
    if venv.join("ready").exists() {
        return python;
    }
    let system_python = std::env::var("BECKON_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
    let building = base.join(format!("python-building-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&building);
    let run = |command: &mut std::process::Command, what: &str| {
        let output = command.output().unwrap_or_else(|err| panic!("{what}: cannot run: {err}"));
        assert!(
            output.status.success(),
            "{what} failed:\n{}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    };
    run(std::process::Command::new(&system_python).arg("-m").arg("venv").arg(&building), "python3 -m venv");
    run(
        std::process::Command::new(building.join("bin").join("python")).args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            MCP_SDK,
        ]),
        "pip install",
    );
    std::fs::write(building.join("ready"), MCP_SDK).unwrap();
    let _ = std::fs::remove_dir_all(&venv);
    std::fs::rename(&building, &venv).unwrap();
    python
}
