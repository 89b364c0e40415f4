//! `beckon docs`: the book installed with this `beckon` (`share/doc/beckon/book/` beside its
//! `bin/`: `/usr/share/doc/beckon/book/` from the packages), opened in the person's browser.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::cli::DocsArgs;
use crate::error::{CliError, CliResult, Exit};

/// Where the book is installed, under the prefix `beckon` is installed in.
const BOOK: &str = "share/doc/beckon/book/index.html";

/// Runs `beckon docs`.
pub fn run(args: &DocsArgs) -> CliResult<Exit> {
    let exe = std::env::current_exe().map_err(|err| CliError::Io(format!("cannot tell where beckon is: {err}")))?;
    let page = installed_book(&exe).ok_or_else(|| {
        CliError::Io(format!(
            "no book is installed with {} (Beckon's packages put it in /usr/share/doc/beckon/book/); \
             from a checkout of Beckon's source, `scripts/docs` serves it",
            exe.display()
        ))
    })?;
    if args.print {
        println!("{}", page.display());
        return Ok(Exit::Success);
    }
    open(&page)?;
    println!("Opened {}", page.display());
    Ok(Exit::Success)
}

/// The book's first page under the prefix of `exe` (`<prefix>/bin/beckon`), if it is there.
fn installed_book(exe: &Path) -> Option<PathBuf> {
    let prefix = exe.parent()?.parent()?;
    let page = prefix.join(BOOK);
    page.is_file().then_some(page)
}

/// Opens `page` with the desktop's handler for web pages, leaving it running.
fn open(page: &Path) -> CliResult<()> {
    let mut command = if cfg!(target_os = "macos") {
        Command::new("open")
    } else if cfg!(target_os = "windows") {
        let mut start = Command::new("cmd");
        start.args(["/C", "start", ""]);
        start
    } else {
        Command::new("xdg-open")
    };
    let program = command.get_program().to_string_lossy().into_owned();
    let status = command
        .arg(page)
        .stdin(Stdio::null())
        .status()
        .map_err(|err| CliError::Io(format!("cannot run {program} to open {}: {err}", page.display())))?;
    if status.success() {
        Ok(())
    } else {
        Err(CliError::Io(format!("{program} could not open {} ({status})", page.display())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_book_is_found_under_the_prefix_of_the_binary() {
        let prefix = tempfile::tempdir().unwrap();
        let exe = prefix.path().join("bin/beckon");
        assert_eq!(installed_book(&exe), None, "nothing installed yet");
        let page = prefix.path().join(BOOK);
        std::fs::create_dir_all(page.parent().unwrap()).unwrap();
        std::fs::write(&page, "<html></html>").unwrap();
        assert_eq!(installed_book(&exe), Some(page));
    }
}
