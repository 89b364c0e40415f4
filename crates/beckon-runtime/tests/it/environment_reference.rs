//! docs/src/reference/environment.md lists exactly the `BECKON_*` variables Beckon's source
//! names: the programs' and the tests', read from every Rust file of the repository (a
//! variable is named as a string, `"BECKON_…"`, whether read with `std::env::var`, through a
//! constant, or by clap's `env = "…"`). The page says what each does, so it is written by hand;
//! this fails when the code names a variable the page does not list, or the page lists one
//! the code no longer names.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const PAGE: &str = "docs/src/reference/environment.md";

#[test]
fn the_environment_page_lists_every_beckon_variable_the_code_reads() {
    let repo = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).to_path_buf();
    let mut files = Vec::new();
    for folder in ["crates", "src-tauri", "tests"] {
        rust_files(&repo.join(folder), &mut files);
    }
    assert!(files.len() > 100, "only {} Rust files found", files.len());
    let mut read = BTreeSet::new();
    for file in &files {
        read.extend(quoted_names(&std::fs::read_to_string(file).unwrap()));
    }
    let listed = listed_names(&std::fs::read_to_string(repo.join(PAGE)).unwrap());
    let missing: Vec<_> = read.difference(&listed).collect();
    let gone: Vec<_> = listed.difference(&read).collect();
    assert!(
        missing.is_empty() && gone.is_empty(),
        "{PAGE} is stale: the code reads {missing:?}, which it does not list; it lists {gone:?}, which no code reads"
    );
}

/// Every `.rs` file under `folder`, build output and npm packages left out.
fn rust_files(folder: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(folder) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() && name != "target" && name != "node_modules" {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            out.push(path);
        }
    }
}

/// The names in `"BECKON_…"` strings.
fn quoted_names(source: &str) -> BTreeSet<String> {
    source
        .split("\"BECKON_")
        .skip(1)
        .filter_map(|rest| {
            let end = rest.find(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))?;
            (rest[end..].starts_with('"') && end > 0).then(|| format!("BECKON_{}", &rest[..end]))
        })
        .collect()
}

/// The `BECKON_…` names in the first cell of the page's table rows.
fn listed_names(page: &str) -> BTreeSet<String> {
    page.lines()
        .filter_map(|line| line.strip_prefix("| "))
        .filter_map(|row| row.split(" | ").next())
        .flat_map(|cell| {
            cell.split('`').filter(|word| word.starts_with("BECKON_")).map(str::to_owned).collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn names_are_read_from_strings_and_table_rows() {
    // Written with `X_` for the prefix, so that this file names no variable itself.
    let beckon = |text: &str| text.replace("X_", "BECKON_");
    let source = beckon(
        r#"env::var("X_LOG"); let x = "X_"; // X_NOT_QUOTED
        #[arg(env = "X_URL")] "X_A B""#,
    );
    assert_eq!(quoted_names(&source), [beckon("X_LOG"), beckon("X_URL")].into());
    let page = beckon("| `X_A`, `X_B` | x | `X_C` |\n|---|---|\nSee `X_D`.\n");
    assert_eq!(listed_names(&page), [beckon("X_A"), beckon("X_B")].into());
}
