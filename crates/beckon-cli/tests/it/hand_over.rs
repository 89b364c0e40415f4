//! `beckon serve`, `beckon mcp` and `beckon status --secret` are served by `beckon-server`:
//! `beckon` hands them over with their arguments as given, and says what to install when it is
//! missing.

use std::path::Path;

use crate::support::served::{beckon, output, text};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_help_is_the_servers_with_every_option() {
    let dir = tempfile::tempdir().unwrap();
    let help = output(beckon(dir.path()).args(["serve", "--help"])).await;
    assert!(help.status.success(), "{}", text(&help.stderr));
    let said = text(&help.stdout);
    assert!(said.contains("Usage: beckon serve [OPTIONS]"), "{said}");
    for option in ["--listen", "--database", "--oidc-issuer", "--max-connections", "--data-dir"] {
        assert!(said.contains(option), "{option} missing from: {said}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_serve_option_is_refused_by_the_server_with_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let refused = output(beckon(dir.path()).args(["serve", "--max-connections", "3"])).await;
    assert_eq!(refused.status.code(), Some(1));
    let said = text(&refused.stderr);
    assert!(said.contains("--max-connections") && said.contains("8..=65536"), "{said}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_beckon_server_beside_it_beckon_says_what_to_install() {
    let alone = tempfile::tempdir().unwrap();
    let copy = alone.path().join("beckon");
    std::fs::copy(env!("CARGO_BIN_EXE_beckon"), &copy).unwrap();
    let data = tempfile::tempdir().unwrap();
    for command in [&["serve"][..], &["mcp"], &["status", "--secret"]] {
        let mut run = tokio::process::Command::new(&copy);
        run.arg("--data-dir").arg(data.path()).args(command).env("PATH", Path::new("/nonexistent"));
        let printed = output(&mut run).await;
        assert_eq!(printed.status.code(), Some(1), "{command:?}");
        let said = text(&printed.stderr);
        assert!(said.contains("cannot run beckon-server") && said.contains("cargo build -p beckon-server"), "{said}");
    }
}
