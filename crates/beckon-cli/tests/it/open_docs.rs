//! `beckon docs` opens the book installed with the binary (`<prefix>/share/doc/beckon/book/`
//! beside `<prefix>/bin/beckon`) with the desktop's handler, and says what to do when there is
//! none.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::support::served::{output, text};

/// `beckon` installed under a prefix of its own, with `xdg-open` (when given) a script that
/// records what it was asked to open and exits with `opener_exits`.
struct Installed {
    prefix: tempfile::TempDir,
    tools: tempfile::TempDir,
}

impl Installed {
    fn new() -> Installed {
        let prefix = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(prefix.path().join("bin")).unwrap();
        std::fs::copy(env!("CARGO_BIN_EXE_beckon"), prefix.path().join("bin/beckon")).unwrap();
        Installed { prefix, tools: tempfile::tempdir().unwrap() }
    }

    fn book(&self) -> PathBuf {
        self.prefix.path().join("share/doc/beckon/book/index.html")
    }

    fn install_book(&self) {
        std::fs::create_dir_all(self.book().parent().unwrap()).unwrap();
        std::fs::write(self.book(), "<html><title>Beckon</title></html>").unwrap();
    }

    fn opened(&self) -> PathBuf {
        self.tools.path().join("opened")
    }

    fn give_opener(&self, exits: u8) {
        let script = self.tools.path().join("xdg-open");
        std::fs::write(
            &script,
            format!("#!/bin/sh\nprintf '%s' \"$1\" > '{}'\nexit {exits}\n", self.opened().display()),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    async fn docs(&self, args: &[&str]) -> std::process::Output {
        let mut run = tokio::process::Command::new(self.prefix.path().join("bin/beckon"));
        run.arg("docs").args(args).env("PATH", self.tools.path()).env_remove("BECKON_DATA_DIR");
        output(&mut run).await
    }
}

fn said(output: &std::process::Output) -> String {
    format!("{}{}", text(&output.stdout), text(&output.stderr))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_book_installed_it_says_where_the_packages_put_it() {
    let installed = Installed::new();
    installed.give_opener(0);
    let refused = installed.docs(&[]).await;
    assert_eq!(refused.status.code(), Some(1), "{}", said(&refused));
    assert!(said(&refused).contains("/usr/share/doc/beckon/book/") && said(&refused).contains("scripts/docs"));
    assert!(!installed.opened().exists(), "nothing was opened");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn it_opens_the_installed_book_with_the_desktops_handler() {
    let installed = Installed::new();
    installed.install_book();
    let printed = installed.docs(&["--print"]).await;
    assert!(printed.status.success(), "{}", said(&printed));
    assert_eq!(text(&printed.stdout).trim_end(), installed.book().display().to_string());

    installed.give_opener(0);
    let opened = installed.docs(&[]).await;
    assert!(opened.status.success(), "{}", said(&opened));
    assert_eq!(Path::new(&std::fs::read_to_string(installed.opened()).unwrap()), installed.book());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handler_that_fails_is_reported() {
    let installed = Installed::new();
    installed.install_book();
    installed.give_opener(3);
    let failed = installed.docs(&[]).await;
    assert_eq!(failed.status.code(), Some(1));
    assert!(said(&failed).contains("xdg-open could not open"), "{}", said(&failed));
}
