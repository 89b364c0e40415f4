//! The book's checker, on any folder: pages against `SUMMARY.md`, relative links and `#anchors`
//! against the files and headings they name, and shell blocks against their marks. It reads
//! Markdown line by line, as much of it as the book uses (ATX headings, inline links, fenced
//! blocks, mdBook's `{{#include file:anchor}}`), so that a mistake is named with its page and
//! line rather than found by a reader.
//!
//! A block marked `run by <test file>` is one that test reads from the page, through
//! [`super::book::block`], and runs: the test fails when the command no longer works. What this
//! checker adds is the other half: the named test file must name the block, by its page and
//! its first line (both as string literals in the test's source, as `book::block` takes them),
//! and that first line must be the page's only block to start so. A command edited on the page,
//! or a test that stops reading the block, then fails here, naming the block's page and line.

use std::collections::{BTreeSet, HashSet};
use std::path::{Component, Path, PathBuf};

/// What a shell block's mark says, on the line before its fence.
const ILLUSTRATIVE: &str = "<!-- block: illustrative -->";
const RUN_BY: &str = "<!-- block: run by ";
/// Languages whose blocks are commands to run, and so must be marked.
const SHELLS: [&str; 4] = ["sh", "bash", "console", "shell"];

/// Every problem of the book whose pages are under `src` (with its `SUMMARY.md`), and of the
/// `others` (Markdown files outside the book, such as the README, checked for links and blocks).
/// Test files a block names are looked up under `repo`. Each problem starts with the file and
/// line it is on.
pub fn problems(src: &Path, others: &[PathBuf], repo: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let pages = pages_under(src);
    let summary = normal(&src.join("SUMMARY.md"));
    let listed = match std::fs::read_to_string(&summary) {
        Ok(text) => links(&text).into_iter().map(|link| normal(&src.join(link.target))).collect::<BTreeSet<_>>(),
        Err(error) => {
            problems.push(format!("{}: cannot be read: {error}", summary.display()));
            BTreeSet::new()
        }
    };
    for page in &pages {
        if page != &summary && !listed.contains(page) {
            problems.push(format!("{}: not listed in SUMMARY.md", shown(page, repo)));
        }
    }
    for page in &listed {
        if !page.is_file() {
            problems.push(format!("{}: listed in SUMMARY.md but there is no such page", shown(page, repo)));
        }
    }
    for file in pages.iter().chain(others) {
        problems.extend(file_problems(file, repo));
    }
    problems
}

/// The links and blocks of one Markdown file.
fn file_problems(file: &Path, repo: &Path) -> Vec<String> {
    let text = match expanded(file) {
        Ok(text) => text,
        Err(error) => return vec![format!("{}: {error}", shown(file, repo))],
    };
    let mut problems = Vec::new();
    let here = file.parent().unwrap_or(Path::new("."));
    for link in links(&text) {
        let at = format!("{}:{}", shown(file, repo), link.line);
        let (path, anchor) = match link.target.split_once('#') {
            Some((path, anchor)) => (path, Some(anchor)),
            None => (link.target.as_str(), None),
        };
        let target = if path.is_empty() { file.to_path_buf() } else { normal(&here.join(path)) };
        if !target.exists() {
            problems.push(format!("{at}: `{}` names no file", link.target));
            continue;
        }
        let Some(anchor) = anchor else { continue };
        let ids = match expanded(&target) {
            Ok(text) => heading_ids(&text),
            Err(error) => {
                problems.push(format!("{at}: `{}`: {error}", link.target));
                continue;
            }
        };
        if !ids.contains(anchor) {
            problems.push(format!(
                "{at}: `{}`: no heading of {} has the id `{anchor}`",
                link.target,
                shown(&target, repo)
            ));
        }
    }
    let blocks = fenced_blocks(&text);
    for block in &blocks {
        let at = format!("{}:{}", shown(file, repo), block.line);
        let language = block.info.split([',', ' ']).next().unwrap_or_default();
        if language.is_empty() {
            problems.push(format!("{at}: a fenced block with no language (`sh`, `json`, `text`, …)"));
        } else if SHELLS.contains(&language) {
            match block.mark.as_deref() {
                Some(ILLUSTRATIVE) => {}
                Some(mark) if mark.starts_with(RUN_BY) && mark.ends_with("-->") => {
                    let test = mark[RUN_BY.len()..mark.len() - 3].trim();
                    problems.extend(run_by_problems(&at, &shown(file, repo), block, &blocks, &repo.join(test), test));
                }
                _ => problems.push(format!(
                    "{at}: a `{language}` block without a mark: put `{ILLUSTRATIVE}` or `{RUN_BY}<test file> -->` on the line before it"
                )),
            }
        }
    }
    problems
}

/// What is wrong with `block` of `page` (one of its `blocks`) being marked as run by `test`
/// (the file `path`): the file is not there, does not name the block, or the block's first
/// line does not pick it out.
fn run_by_problems(at: &str, page: &str, block: &Block, blocks: &[Block], path: &Path, test: &str) -> Vec<String> {
    let source = match std::fs::read_to_string(path) {
        Ok(source) => source,
        Err(_) => return vec![format!("{at}: the block's mark names `{test}`, which is not a file")],
    };
    let first = block.first_line();
    let mut problems = Vec::new();
    if blocks.iter().filter(|other| other.first_line() == first).count() > 1 {
        problems.push(format!(
            "{at}: another block of the page starts with `{first}` too: a block run by a test is named by its first line"
        ));
    }
    let literals = string_literals(&source);
    if !literals.contains(page) || !literals.contains(first) {
        problems.push(format!(
            "{at}: `{test}` does not read this block: it names no {} (a stale command, or a test that no longer runs it)",
            if literals.contains(page) { format!("block starting `{first}`") } else { format!("page `{page}`") }
        ));
    }
    problems
}

/// The string literals of a Rust source file, as the strings they stand for: `"…"` with its
/// escapes, and raw `r"…"`, `r#"…"#`. Comments and character literals are skipped, so a quote
/// in them starts nothing.
pub fn string_literals(source: &str) -> HashSet<String> {
    let mut found = HashSet::new();
    let chars: Vec<char> = source.chars().collect();
    let mut at = 0;
    while at < chars.len() {
        match chars[at] {
            '/' if chars.get(at + 1) == Some(&'/') => {
                while at < chars.len() && chars[at] != '\n' {
                    at += 1;
                }
            }
            '/' if chars.get(at + 1) == Some(&'*') => {
                at += 2;
                while at + 1 < chars.len() && !(chars[at] == '*' && chars[at + 1] == '/') {
                    at += 1;
                }
                at += 2;
            }
            // A character literal (`'"'`, `'\''`), not a lifetime (`'a`).
            '\'' if chars.get(at + 1) == Some(&'\\') => {
                at += 3;
                while at < chars.len() && chars[at] != '\'' {
                    at += 1;
                }
                at += 1;
            }
            '\'' if chars.get(at + 2) == Some(&'\'') => at += 3,
            'r' if !chars.get(at.wrapping_sub(1)).is_some_and(|ch| ch.is_alphanumeric() || *ch == '_') => {
                let hashes = chars[at + 1..].iter().take_while(|&&ch| ch == '#').count();
                if chars.get(at + 1 + hashes) != Some(&'"') {
                    at += 1;
                    continue;
                }
                let start = at + 2 + hashes;
                let close: Vec<char> = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
                let mut end = start;
                while end < chars.len() && !chars[end..].starts_with(&close) {
                    end += 1;
                }
                found.insert(chars[start..end.min(chars.len())].iter().collect());
                at = end + close.len();
            }
            '"' => {
                let mut text = String::new();
                at += 1;
                while at < chars.len() && chars[at] != '"' {
                    if chars[at] == '\\' {
                        at += 1;
                        match chars.get(at) {
                            Some('n') => text.push('\n'),
                            Some('t') => text.push('\t'),
                            Some('0') => text.push('\0'),
                            // A line continuation: the newline and the next line's indentation go.
                            Some('\n') => {
                                while chars.get(at + 1).is_some_and(|ch| ch.is_whitespace()) {
                                    at += 1;
                                }
                            }
                            Some(&other) => text.push(other),
                            None => {}
                        }
                    } else {
                        text.push(chars[at]);
                    }
                    at += 1;
                }
                found.insert(text);
                at += 1;
            }
            _ => at += 1,
        }
    }
    found
}

/// Every `.md` file under `dir`, as paths from `dir`'s own path. Symbolic links are not
/// followed (the screenshots' folder is one).
fn pages_under(dir: &Path) -> BTreeSet<PathBuf> {
    let mut pages = BTreeSet::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return pages };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => pages.extend(pages_under(&path)),
            Ok(kind) if kind.is_file() && path.extension().is_some_and(|ext| ext == "md") => {
                pages.insert(normal(&path));
            }
            _ => {}
        }
    }
    pages
}

/// A file's text with mdBook's `{{#include path:anchor}}` lines replaced by what they include
/// (a whole file, or the lines between `ANCHOR: name` and `ANCHOR_END: name`), as mdBook does.
/// Line numbers of the page's own lines stay right only for lines before the first include;
/// an include is one line in every page here.
pub fn expanded(file: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(file).map_err(|error| format!("cannot be read: {error}"))?;
    let mut out = String::new();
    for line in text.lines() {
        let include = line.trim().strip_prefix("{{#include ").and_then(|rest| rest.strip_suffix("}}"));
        match include {
            Some(spec) => {
                let (path, anchor) = match spec.trim().rsplit_once(':') {
                    Some((path, anchor)) => (path, Some(anchor)),
                    None => (spec.trim(), None),
                };
                let included = file.parent().unwrap_or(Path::new(".")).join(path);
                let whole = std::fs::read_to_string(&included)
                    .map_err(|error| format!("includes {}, which cannot be read: {error}", included.display()))?;
                out.push_str(&anchored(&whole, anchor).ok_or_else(|| format!("includes {spec}: no such anchor"))?);
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    Ok(out)
}

/// The lines of `text` between `ANCHOR: name` and `ANCHOR_END: name`, without those lines, or
/// all of it without a name.
fn anchored(text: &str, anchor: Option<&str>) -> Option<String> {
    let Some(name) = anchor else { return Some(text.to_owned()) };
    let marks = |line: &str, mark: &str| {
        line.split_whitespace().collect::<Vec<_>>().windows(2).any(|pair| pair == [mark, name])
    };
    let mut lines = text.lines().skip_while(|line| !marks(line, "ANCHOR:"));
    lines.next()?;
    let mut out = String::new();
    for line in lines {
        if marks(line, "ANCHOR_END:") {
            return Some(out);
        }
        out.push_str(line);
        out.push('\n');
    }
    None
}

/// A link in a page: where it points, and the line it is on (from 1).
pub struct Link {
    pub target: String,
    pub line: usize,
}

/// The relative links and images of a page (`[text](target)`, `![alt](target)`), outside fenced
/// blocks and code spans. Links to other sites (`https:`, `mailto:`) are not the book's to check.
pub fn links(text: &str) -> Vec<Link> {
    let mut found = Vec::new();
    for (number, line) in prose_lines(text) {
        let prose = without_code_spans(line);
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let Some(end) = rest.find(')') else { break };
            // `(target "title")`: the target is the first word.
            let target = rest[..end].split_whitespace().next().unwrap_or_default().trim_matches(['<', '>']);
            if !target.is_empty() && !target.contains("://") && !target.starts_with("mailto:") {
                found.push(Link { target: target.to_owned(), line: number });
            }
            rest = &rest[end..];
        }
    }
    found
}

/// The ids mdBook gives a page's headings: an explicit `{#id}`, else the heading's text by
/// `id_from_content`, made unique with `-1`, `-2`, … in page order.
pub fn heading_ids(text: &str) -> HashSet<String> {
    let mut ids = HashSet::new();
    for (_, line) in prose_lines(text) {
        let trimmed = line.trim_start();
        let hashes = trimmed.chars().take_while(|&ch| ch == '#').count();
        if !(1..=6).contains(&hashes) || !trimmed[hashes..].starts_with([' ', '\t']) || line.len() - trimmed.len() > 3 {
            continue;
        }
        let heading = trimmed[hashes..].trim().trim_end_matches('#').trim_end();
        let id = match heading.rsplit_once("{#") {
            Some((_, explicit)) if explicit.ends_with('}') => explicit.trim_end_matches('}').to_owned(),
            _ => id_from_content(&rendered_text(heading)),
        };
        let mut unique = id.clone();
        let mut counter = 1;
        while !ids.insert(unique.clone()) {
            unique = format!("{id}-{counter}");
            counter += 1;
        }
    }
    ids
}

/// mdBook's `id_from_content` (mdbook-html's utils.rs): the text trimmed and in lower case,
/// letters, digits, `_` and `-` kept, whitespace as `-`, everything else dropped.
pub fn id_from_content(text: &str) -> String {
    text.trim()
        .to_lowercase()
        .chars()
        .filter_map(|ch| match ch {
            ch if ch.is_alphanumeric() || ch == '_' || ch == '-' => Some(ch),
            ch if ch.is_whitespace() => Some('-'),
            _ => None,
        })
        .collect()
}

/// A heading's text as it renders: links as their text, code spans as their code, emphasis
/// marks gone.
fn rendered_text(heading: &str) -> String {
    let mut text = String::new();
    let mut rest = heading;
    // `[text](target)` → `text`.
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find("](").map(|at| at + open) else { break };
        let Some(end) = rest[close..].find(')').map(|at| at + close) else { break };
        text.push_str(&rest[..open]);
        text.push_str(&rest[open + 1..close]);
        rest = &rest[end + 1..];
    }
    text.push_str(rest);
    text.replace(['`', '*'], "")
}

/// A fenced block: its info string, the line of its opening fence, the non-blank line before
/// that fence when it is an HTML comment (a block's mark), and its lines, without the fence's
/// own indentation (a block in a list item is indented).
pub struct Block {
    pub info: String,
    pub line: usize,
    pub mark: Option<String>,
    pub lines: Vec<String>,
}

impl Block {
    /// Its first line, without indentation: what a test names it by.
    pub fn first_line(&self) -> &str {
        self.lines.first().map(|line| line.trim()).unwrap_or_default()
    }
}

/// Every fenced block of a page.
pub fn fenced_blocks(text: &str) -> Vec<Block> {
    let mut blocks: Vec<Block> = Vec::new();
    let mut open: Option<(&str, usize)> = None;
    let mut before: Option<&str> = None;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        match open {
            Some((fence, indent)) => {
                if closes(trimmed, fence) {
                    open = None;
                } else if let Some(block) = blocks.last_mut() {
                    let inside = line.len() - trimmed.len();
                    block.lines.push(line[inside.min(indent)..].to_owned());
                }
            }
            None => {
                if let Some(fence) = fence_of(trimmed) {
                    let mark = before.filter(|line| line.starts_with("<!--")).map(str::to_owned);
                    let info = trimmed[fence.len()..].trim().to_owned();
                    blocks.push(Block { info, line: index + 1, mark, lines: Vec::new() });
                    open = Some((fence, line.len() - trimmed.len()));
                } else if !trimmed.is_empty() {
                    before = Some(trimmed.trim_end());
                }
            }
        }
    }
    blocks
}

/// The fence a line opens (its run of three or more backticks or tildes), if it opens one.
fn fence_of(trimmed: &str) -> Option<&str> {
    let first = trimmed.chars().next().filter(|&ch| ch == '`' || ch == '~')?;
    let length = trimmed.chars().take_while(|&ch| ch == first).count();
    (length >= 3).then(|| &trimmed[..length])
}

/// Whether a line closes the block `fence` opened: a run of the same character, at least as long.
fn closes(trimmed: &str, fence: &str) -> bool {
    let trimmed = trimmed.trim_end();
    trimmed.starts_with(fence) && trimmed.chars().all(|ch| fence.starts_with(ch))
}

/// The lines of a page outside fenced blocks, with their numbers (from 1).
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut lines = Vec::new();
    let mut open: Option<&str> = None;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        match open {
            Some(fence) => {
                if closes(trimmed, fence) {
                    open = None;
                }
            }
            None => match fence_of(trimmed) {
                Some(fence) => open = Some(fence),
                None => lines.push((index + 1, line)),
            },
        }
    }
    lines
}

/// A line with its code spans taken out (text between backticks is code, not links).
fn without_code_spans(line: &str) -> String {
    line.split('`').step_by(2).collect::<Vec<_>>().join(" ")
}

/// `path` with `.` and `..` resolved by name (not through the file system, so a symbolic link
/// is not followed).
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// `path` as the repository names it, for messages.
fn shown(path: &Path, repo: &Path) -> String {
    let path = normal(path);
    path.strip_prefix(normal(repo)).unwrap_or(&path).display().to_string()
}
