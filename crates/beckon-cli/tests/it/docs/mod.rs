//! The book under docs/ as a reader meets it: every page in `SUMMARY.md`, every relative link
//! and `#anchor` (the README's too) reaching a file and a heading, every fenced block saying its
//! language and every shell block marked as run by a named test or as illustrative. mdBook
//! itself builds the book in `scripts/test`, its warnings taken as errors; it does not check
//! anchors, and says nothing of a page left out of the summary. The checker is tested on small
//! books planted in a temporary folder (`planted.rs`).
//!
//! These live with the `beckon` command's tests because the book's commands are the command's:
//! the tests that run the book's blocks are here (`operations/`, `team_walkthrough.rs`), reading
//! them through one reader (`book.rs`), and so is the checker that holds the book to them.

pub mod book;
mod check;
mod cli_reference;
mod planted;

use std::path::{Path, PathBuf};

#[test]
fn the_book_has_every_page_in_its_summary_no_broken_link_and_no_unmarked_shell_block() {
    let repo = repo();
    let problems = check::problems(&repo.join("docs/src"), &[repo.join("README.md")], &repo);
    assert!(
        problems.is_empty(),
        "the book (docs/src) and the README have {} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The repository's root.
fn repo() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).to_path_buf()
}
