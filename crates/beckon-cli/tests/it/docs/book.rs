//! How a test reads the book's commands: the one way in for every test that runs a shell block
//! of the book, so that what the book shows is what runs. A test names a block by its page and
//! its first line; the block must be marked as run by that test (the caller's file), and the
//! checker (`check.rs`) holds each such mark to a test that names the block so.
//!
//! What a test must change to run a block (a temporary folder for `/var/lib/beckon/a`, its own
//! port, its provider's address) it replaces with [`Block::with`], placeholder by placeholder;
//! each placeholder must be in the block, and the page says what to replace.

use std::panic::Location;

use super::check;

/// A shell block of the book, as a test runs it.
pub struct Block {
    /// Where it is, for messages: `docs/src/….md:LINE`.
    pub at: String,
    /// Its lines, without the indentation of a block in a list.
    pub lines: Vec<String>,
}

/// The block of `page` (a path from the repository's root) whose first line is `first`, marked
/// as run by the calling test's file.
#[track_caller]
pub fn block(page: &str, first: &str) -> Block {
    let test = Location::caller().file();
    let text = check::expanded(&super::repo().join(page)).unwrap_or_else(|error| panic!("{page}: {error}"));
    let mut found = check::fenced_blocks(&text).into_iter().filter(|block| block.first_line() == first);
    let block = found.next().unwrap_or_else(|| panic!("{page} has no block starting `{first}`"));
    assert!(found.next().is_none(), "{page} has more than one block starting `{first}`");
    let at = format!("{page}:{}", block.line);
    let mark = format!("<!-- block: run by {test} -->");
    assert_eq!(block.mark.as_deref(), Some(mark.as_str()), "{at}: the block is not marked as run by {test}");
    Block { at, lines: block.lines }
}

impl Block {
    /// Its text.
    pub fn text(&self) -> String {
        self.lines.join("\n")
    }

    /// Its text with each placeholder replaced by its value; every placeholder must be there.
    pub fn with(&self, replacements: &[(&str, &str)]) -> String {
        let mut text = self.text();
        for (placeholder, value) in replacements {
            assert!(text.contains(placeholder), "{}: no `{placeholder}` in the block:\n{text}", self.at);
            text = text.replace(placeholder, value);
        }
        text
    }
}

/// The commands of a script: its lines, those ending in `\` joined with the next, without
/// blank lines and comments.
pub fn commands(script: &str) -> Vec<String> {
    let mut commands = Vec::new();
    let mut current = String::new();
    for line in script.lines() {
        let line = line.trim();
        if current.is_empty() && (line.is_empty() || line.starts_with('#')) {
            continue;
        }
        match line.strip_suffix('\\') {
            Some(part) => current.push_str(part),
            None => {
                current.push_str(line);
                commands.push(std::mem::take(&mut current));
            }
        }
    }
    commands
}

/// A simple command's words, as the shell splits them: on blanks, with `'…'` and `"…"` quoting.
/// Anything else the shell would read (`$`, `` ` ``, `|`, `;`, `&`, `<`, `>`, `\`) is refused: a
/// command that has it is run through `sh -c`, not word by word.
pub fn words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for ch in command.chars() {
        match (quote, ch) {
            (Some(open), ch) if ch == open => quote = None,
            (Some('"'), '$' | '`' | '\\') => panic!("`{command}` expands `{ch}` in double quotes: run it with sh -c"),
            (Some(_), ch) => word.get_or_insert_default().push(ch),
            (None, '\'' | '"') => {
                quote = Some(ch);
                word.get_or_insert_default();
            }
            (None, ch) if ch.is_whitespace() => words.extend(word.take()),
            (None, '$' | '`' | '|' | ';' | '&' | '<' | '>' | '\\' | '(' | ')') => {
                panic!("`{command}` has `{ch}`, which the shell reads: run it with sh -c")
            }
            (None, ch) => word.get_or_insert_default().push(ch),
        }
    }
    assert!(quote.is_none(), "`{command}` has an unclosed quote");
    words.extend(word);
    words
}

#[test]
fn commands_and_words_are_split_as_the_shell_splits_them() {
    let script = "# a comment\nexport URL='postgres://a b'\n\nbeckon serve \\\n  --port 7401 --name \"x y\"\n";
    assert_eq!(commands(script), ["export URL='postgres://a b'", "beckon serve --port 7401 --name \"x y\""]);
    assert_eq!(words("export URL='postgres://a b'"), ["export", "URL=postgres://a b"]);
    assert_eq!(
        words("beckon serve --port 7401 --name \"x y\" ''"),
        ["beckon", "serve", "--port", "7401", "--name", "x y", ""]
    );
    assert!(std::panic::catch_unwind(|| words("echo $HOME")).is_err());
}
