//! `beckon-server` on its own: the command line `beckon` hands over to it reads as `beckon`'s.
//! (`beckon serve` and `beckon mcp` are tested end to end through `beckon`, in beckon-cli's
//! tests.)

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::process::{Command, Output};

fn server(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_beckon-server"))
        .args(args)
        .env_remove("BECKON_DATA_DIR")
        .env_remove("BECKON_DATABASE_URL")
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn it_names_itself_beckon_with_beckons_version() {
    let version = server(&["--version"]);
    assert!(version.status.success());
    assert_eq!(text(&version.stdout), format!("beckon {}\n", env!("CARGO_PKG_VERSION")));
    let help = text(&server(&["mcp", "--help"]).stdout);
    assert!(help.contains("Usage: beckon mcp"), "{help}");
}

#[test]
fn the_callback_secret_of_a_folder_beckon_never_ran_in_is_refused_and_nothing_is_made() {
    let dir = tempfile::tempdir().unwrap();
    let printed = server(&["--data-dir", dir.path().to_str().unwrap(), "callback-secret"]);
    assert_eq!(printed.status.code(), Some(1));
    assert_eq!(text(&printed.stdout), "");
    assert!(text(&printed.stderr).starts_with("error: "), "{}", text(&printed.stderr));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "reading the secret creates nothing");
}

#[test]
fn a_usage_error_exits_1_never_2() {
    let refused = server(&["serve", "--no-such-option"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(text(&refused.stderr).contains("--no-such-option"));
}
