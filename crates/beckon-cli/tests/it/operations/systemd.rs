//! The systemd unit in packaging/systemd, as `systemd-analyze` judges it. `verify` checks that
//! the program `ExecStart=` names exists, and the unit names /usr/bin/beckon, where the packages
//! install it; so what is verified here is a copy whose `ExecStart=` names the `beckon` this test
//! was built with, and nothing else changed. (The package test verifies the unit as installed.)
//! Nothing here starts the service: these tests run without a systemd of their own.

use std::process::Command;

use super::{notes_block, repo};

/// Where the packages install `beckon`.
const INSTALLED: &str = "/usr/bin/beckon";

fn unit() -> String {
    std::fs::read_to_string(repo().join("packaging/systemd/beckon.service")).unwrap()
}

/// The unit with its `ExecStart=` program replaced by `program`, written into `dir`.
fn copy_running(unit: &str, dir: &std::path::Path, program: &str) -> std::path::PathBuf {
    let copy = dir.join("beckon.service");
    let exec = format!("ExecStart={INSTALLED} ");
    assert_eq!(unit.matches(&exec).count(), 1, "the unit starts {INSTALLED}, once:\n{unit}");
    std::fs::write(&copy, unit.replace(&exec, &format!("ExecStart={program} "))).unwrap();
    copy
}

/// Runs `systemd-analyze` with `args`: its exit status and everything it said.
fn analyze(args: &[&str], unit: &std::path::Path) -> (bool, String) {
    let output = Command::new("systemd-analyze")
        .args(args)
        .arg(unit)
        .output()
        .expect("systemd-analyze runs (the `systemd` package, which scripts/install-deps installs)");
    let said = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    (output.status.success(), said)
}

#[test]
fn the_unit_verifies_with_nothing_to_say() {
    let dir = tempfile::tempdir().unwrap();
    let copy = copy_running(&unit(), dir.path(), env!("CARGO_BIN_EXE_beckon"));
    // `verify` exits 0 on an unknown key or a value it cannot parse, saying so: anything it
    // says is a fault.
    let (passed, said) = analyze(&["verify"], &copy);
    assert!(passed && said.trim().is_empty(), "systemd-analyze verify:\n{said}");
}

#[test]
fn verify_speaks_up_about_what_it_does_not_take() {
    // The check above would catch a misspelt setting and a missing program.
    let dir = tempfile::tempdir().unwrap();
    let misspelt = unit().replace("ProtectSystem=strict", "ProtectSystm=strict");
    let (_, said) = analyze(&["verify"], &copy_running(&misspelt, dir.path(), env!("CARGO_BIN_EXE_beckon")));
    assert!(said.contains("ProtectSystm"), "{said}");
    let dir = tempfile::tempdir().unwrap();
    let (passed, said) = analyze(&["verify"], &copy_running(&unit(), dir.path(), "/nonexistent/beckon"));
    assert!(!passed && said.contains("/nonexistent/beckon"), "{said}");
}

#[test]
fn the_service_is_sandboxed() {
    let unit = unit();
    for setting in [
        "DynamicUser=yes",
        "StateDirectory=beckon",
        "NoNewPrivileges=yes",
        "ProtectSystem=strict",
        "ProtectHome=yes",
        "PrivateTmp=yes",
        "CapabilityBoundingSet=\n",
        "ExecStart=/usr/bin/beckon --data-dir /var/lib/beckon serve $BECKON_SERVE_ARGS\n",
        "EnvironmentFile=-/etc/beckon/beckon.env\n",
    ] {
        assert!(unit.contains(setting), "the unit has no {setting:?}:\n{unit}");
    }
    // `security` rates how much the service is exposed, 0.0 to 10.0 as it prints it; the
    // threshold is on the 0–100 scale behind that figure: at most 2.0.
    let dir = tempfile::tempdir().unwrap();
    let copy = copy_running(&unit, dir.path(), env!("CARGO_BIN_EXE_beckon"));
    let (passed, said) = analyze(&["security", "--offline=yes", "--threshold=20"], &copy);
    assert!(passed, "systemd-analyze security rates the unit's exposure above 2.0:\n{said}");
}

#[test]
fn the_notes_drop_in_for_built_in_tls_verifies_with_the_unit() {
    let dir = tempfile::tempdir().unwrap();
    let copy = copy_running(&unit(), dir.path(), env!("CARGO_BIN_EXE_beckon"));
    // `verify` reads the drop-ins in `<unit>.d/` beside the unit it is given.
    let drop_ins = dir.path().join("beckon.service.d");
    std::fs::create_dir(&drop_ins).unwrap();
    let tls = notes_block("# /etc/systemd/system/beckon.service.d/tls.conf");
    assert!(tls.contains("LoadCredential=tls-key:"), "{tls}");
    std::fs::write(drop_ins.join("tls.conf"), &tls).unwrap();
    let (passed, said) = analyze(&["verify"], &copy);
    assert!(passed && said.trim().is_empty(), "systemd-analyze verify with the drop-in:\n{said}");
    // And the check reads it: a fault in it is heard.
    std::fs::write(drop_ins.join("tls.conf"), tls.replace("LoadCredential=", "LoadCredentials=")).unwrap();
    let (_, said) = analyze(&["verify"], &copy);
    assert!(said.contains("LoadCredentials"), "{said}");
}
