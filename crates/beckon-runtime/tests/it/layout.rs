//! No circle of files inside any crate of the workspace: following the files a file uses, and
//! the files those use, never leads back to it. A part can then be read, and tested, with only
//! what it names.
//!
//! Every member the root `Cargo.toml` lists is read (a crate added there is covered with no
//! change here), each crate root of it on its own: `src/lib.rs`, `src/main.rs`, `src/bin/*.rs`
//! and `src/bin/*/main.rs`, with the files their `mod` lines load. A file under a `src` that no
//! root loads fails the test, so no file escapes the reading. The test sits with the runtime
//! because it needs a crate to run in; it reads the sources and links none of them.
//!
//! The rule, as checked here:
//! - Each source file is one node (`executor/mod.rs`, `executor/perform.rs`, `lib.rs`), and a
//!   file uses only files of its own crate root.
//! - A file uses another when it names it, or an item in it, by a path: `crate::…`,
//!   `super::…`, `self::…`, or the name of a module it declares (`mod perform;` then
//!   `perform::run`). `use` lines and paths in code count alike.
//! - A path through a `pub use` leads on to the file that defines the item, so naming
//!   `crate::Error` uses `error.rs`. A `pub use` line itself, and a `mod` line, use nothing:
//!   they only make names reachable.
//! - Test code is left out: `#[cfg(test)]` items, and the files a `#[cfg(test)] mod` loads.
//! - Comments and the insides of string and character literals are not read.
//!
//! Method calls name no file, so a file that calls a method defined in another file's
//! `impl` block does not use it by this rule: what is checked is how files name each other,
//! which is what a reader follows.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Which files each file uses, by path inside `src` (`executor/mod.rs`).
type Graph = BTreeMap<String, BTreeSet<String>>;

/// A module's path inside its crate (`["executor", "perform"]`; the crate root is empty).
type Module = Vec<String>;

/// Every `.rs` file under `dir`, as its path inside `root` with `/` between parts, and its text.
fn sources(root: &Path, dir: &Path, found: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(root, &path, found);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            let relative = path.strip_prefix(root).unwrap();
            let name = relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
            found.push((name, std::fs::read_to_string(&path).unwrap()));
        }
    }
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// `text` with comments and the insides of string and character literals turned to spaces
/// (line breaks kept), and anything not ASCII left in code turned to a space.
fn blank(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blanked = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let at = |k: usize| chars.get(k).copied().unwrap_or('\0');
        let ident_before = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        if at(i) == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if at(i) == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if at(i) == '/' && at(i + 1) == '*' {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if at(i) == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blanked(chars[i]));
                    i += 1;
                }
            }
        } else if !ident_before && (at(i) == 'r' || (at(i) == 'b' && at(i + 1) == 'r')) && {
            let start = if at(i) == 'b' { i + 2 } else { i + 1 };
            let hashes = (start..).take_while(|&k| at(k) == '#').count();
            at(start + hashes) == '"'
        } {
            // A raw string: r"…", r#"…"#, br"…".
            let start = if at(i) == 'b' { i + 2 } else { i + 1 };
            let hashes = (start..).take_while(|&k| at(k) == '#').count();
            let body = start + hashes + 1;
            let closes = |k: usize| at(k) == '"' && (1..=hashes).all(|h| at(k + h) == '#');
            let end = (body..chars.len()).find(|&k| closes(k)).unwrap_or(chars.len());
            out.extend(&chars[i..body]);
            out.extend(chars[body..end].iter().map(|&c| blanked(c)));
            out.extend(&chars[end..(end + 1 + hashes).min(chars.len())]);
            i = end + 1 + hashes;
        } else if at(i) == '"' {
            out.push('"');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                let step = if chars[i] == '\\' { 2 } else { 1 };
                out.extend(chars[i..(i + step).min(chars.len())].iter().map(|&c| blanked(c)));
                i += step;
            }
            out.push('"');
            i += 1;
        } else if at(i) == '\'' && (at(i + 1) == '\\' || at(i + 2) == '\'') {
            // A character literal ('x', '\n', '\u{…}'); a lifetime ('a) has no closing quote.
            let end = if at(i + 1) == '\\' { (i + 3..chars.len()).find(|&k| chars[k] == '\'') } else { Some(i + 2) };
            let end = end.unwrap_or(chars.len() - 1);
            out.push('\'');
            out.extend(chars[i + 1..end].iter().map(|&c| blanked(c)));
            out.push('\'');
            i = end + 1;
        } else {
            out.push(if chars[i].is_ascii() { chars[i] } else { ' ' });
            i += 1;
        }
    }
    out
}

/// The end of the item that starts at `from`: its `;`, or the `}` closing its first `{`.
fn item_end(code: &[u8], from: usize) -> usize {
    let mut depth = 0;
    for (k, &c) in code.iter().enumerate().skip(from) {
        match c {
            b';' if depth == 0 => return k + 1,
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return k + 1;
                }
            }
            _ => {}
        }
    }
    code.len()
}

/// The index after the whitespace at `from`.
fn skip_space(code: &[u8], mut from: usize) -> usize {
    while from < code.len() && code[from].is_ascii_whitespace() {
        from += 1;
    }
    from
}

/// The identifier at `from`, if one starts there.
fn ident_at(code: &[u8], from: usize) -> Option<&str> {
    let end = (from..code.len()).find(|&k| !is_ident(code[k])).unwrap_or(code.len());
    (end > from && !code[from].is_ascii_digit()).then(|| std::str::from_utf8(&code[from..end]).unwrap())
}

/// Blanked code without its test items, and the modules its `#[cfg(test)] mod x;` lines load.
/// `pub(in path)` is blanked too: it limits who may see an item and uses nothing.
fn without_tests(code: &str) -> (String, Vec<String>) {
    let mut code = code.as_bytes().to_vec();
    let mut test_modules = Vec::new();
    let attribute = b"#[cfg(test)]";
    while let Some(at) = code.windows(attribute.len()).position(|w| w == attribute) {
        let mut start = skip_space(&code, at + attribute.len());
        // Further attributes of the same item (`#[path = …]`).
        while code.get(start) == Some(&b'#') {
            let close = (start..code.len()).find(|&k| code[k] == b']').unwrap_or(code.len() - 1);
            start = skip_space(&code, close + 1);
        }
        let end = item_end(&code, start);
        let item = String::from_utf8_lossy(&code[start..end]).into_owned();
        let words: Vec<&str> = item.split(|c: char| !is_ident(c as u8)).filter(|w| !w.is_empty()).collect();
        if item.ends_with(';')
            && let Some(name) = words.iter().position(|w| *w == "mod").and_then(|k| words.get(k + 1))
        {
            test_modules.push((*name).to_owned());
        }
        code.splice(at..end, std::iter::repeat_n(b' ', end - at));
    }
    let visibility = b"pub(in ";
    while let Some(at) = code.windows(visibility.len()).position(|w| w == visibility) {
        let close = (at..code.len()).find(|&k| code[k] == b')').unwrap_or(code.len() - 1);
        code.splice(at..=close, std::iter::repeat_n(b' ', close + 1 - at));
    }
    (String::from_utf8(code).unwrap(), test_modules)
}

/// The names `mod` lines declare.
fn declared_modules(code: &str) -> BTreeSet<String> {
    let words: Vec<&str> = code.split(|c: char| !is_ident(c as u8) && c != ';').filter(|w| !w.is_empty()).collect();
    words
        .windows(2)
        .filter(|pair| pair[0] == "mod" && pair[1].ends_with(';'))
        .map(|pair| pair[1].trim_end_matches(';').to_owned())
        .collect()
}

/// One path of a use tree: its segments and the name it is known by (`as` or its last
/// segment; `self` in a group stands for the path before the group).
#[derive(Debug)]
struct Named {
    segments: Vec<String>,
    name: String,
}

/// The paths of the use tree (or plain path) starting at `from`, and where it ends.
fn use_tree(code: &[u8], from: usize, prefix: &[String]) -> (Vec<Named>, usize) {
    let mut segments = prefix.to_vec();
    let mut at = from;
    loop {
        at = skip_space(code, at);
        if code.get(at) == Some(&b'{') {
            let mut found = Vec::new();
            at += 1;
            loop {
                at = skip_space(code, at);
                match code.get(at) {
                    None => return (found, at),
                    Some(b'}') => return (found, at + 1),
                    Some(b',') => at += 1,
                    Some(_) => {
                        let (inner, end) = use_tree(code, at, &segments);
                        found.extend(inner);
                        at = end.max(at + 1);
                    }
                }
            }
        }
        if code.get(at) == Some(&b'*') {
            return (vec![Named { segments: segments.clone(), name: "*".into() }], at + 1);
        }
        let Some(ident) = ident_at(code, at) else {
            let name = segments.last().cloned().unwrap_or_default();
            return (vec![Named { segments, name }], at);
        };
        at += ident.len();
        // `self` first in a group stands for the path before the group.
        if !(ident == "self" && !prefix.is_empty() && segments.len() == prefix.len()) {
            segments.push(ident.to_owned());
        }
        if code[at..].starts_with(b"::") && !code[at..].starts_with(b"::<") {
            at += 2;
            continue;
        }
        let mut name = segments.last().cloned().unwrap_or_default();
        let after = skip_space(code, at);
        if ident_at(code, after) == Some("as") {
            let alias_at = skip_space(code, after + 2);
            if let Some(alias) = ident_at(code, alias_at) {
                name = alias.to_owned();
                at = alias_at + alias.len();
            }
        }
        return (vec![Named { segments, name }], at);
    }
}

/// What one file says about paths: the paths it uses, and the names it re-exports with
/// where they lead; both as paths from the crate root.
#[derive(Debug, Default)]
struct Paths {
    uses: Vec<Vec<String>>,
    reexports: BTreeMap<String, Vec<String>>,
}

/// The paths in one file's code, read as from `module`, whose declared children are `children`.
fn paths(code: &str, module: &Module, children: &BTreeSet<String>) -> Paths {
    let bytes = code.as_bytes();
    let mut found = Paths::default();
    let mut at = 0;
    while at < bytes.len() {
        let starts = is_ident(bytes[at]) && (at == 0 || !(is_ident(bytes[at - 1]) || bytes[at - 1] == b':'));
        let Some(ident) = ident_at(bytes, at).filter(|_| starts) else {
            at += 1;
            continue;
        };
        let end = at + ident.len();
        if !bytes[end..].starts_with(b"::") {
            at = end;
            continue;
        }
        let (tree, tree_end) = use_tree(bytes, at, &[]);
        let ours = ["crate", "super", "self"].contains(&ident) || children.contains(ident);
        if ours {
            // A `pub use` re-exports: the statement before the path ends `pub… use`.
            let start = bytes[..at].iter().rposition(|c| b";{}".contains(c)).map_or(0, |k| k + 1);
            let words: Vec<&str> = std::str::from_utf8(&bytes[start..at]).unwrap().split_whitespace().collect();
            let reexport = matches!(words[..], [.., visibility, "use"] if visibility.starts_with("pub"));
            for named in tree {
                let absolute = absolute(&named.segments, module);
                if reexport {
                    found.reexports.insert(named.name, absolute);
                } else {
                    found.uses.push(absolute);
                }
            }
        }
        at = tree_end.max(end);
    }
    found
}

/// A path read in `module`, as a path from the crate root.
fn absolute(segments: &[String], module: &Module) -> Vec<String> {
    let mut base = module.clone();
    let mut rest = segments;
    match segments.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &segments[1..];
        }
        Some("self") => rest = &segments[1..],
        Some("super") => {
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest = &rest[1..];
            }
        }
        _ => {}
    }
    base.extend(rest.iter().filter(|s| *s != "*").cloned());
    base
}

/// The module a path leads to: the longest prefix that is a file, followed through the
/// re-exports of the module it names.
fn target(
    path: &[String],
    files: &BTreeMap<Module, String>,
    reexports: &BTreeMap<Module, BTreeMap<String, Vec<String>>>,
) -> Module {
    let mut path = path.to_vec();
    for _ in 0..16 {
        let known = (0..=path.len()).rev().find(|&k| files.contains_key(&path[..k])).unwrap_or(0);
        let module = path[..known].to_vec();
        let Some(next) = path.get(known).and_then(|name| reexports.get(&module)?.get(name)) else {
            return module;
        };
        path = next.iter().chain(&path[known + 1..]).cloned().collect();
    }
    panic!("re-exports go round in a circle at {path:?}");
}

/// What one crate root reaches through its `mod` lines: each module with its file and its
/// code (blanked, tests left out), and the files only a `#[cfg(test)] mod` loads.
#[derive(Debug, Default)]
struct Tree {
    codes: BTreeMap<Module, (String, String)>,
    test_files: BTreeSet<String>,
}

/// The folder a module's children are in: beside a crate root or a `mod.rs`, else in the
/// folder named as the file (`a.rs`'s `mod b;` is `a/b.rs`).
fn children_dir(file: &str, is_root: bool) -> String {
    let dir = if is_root || file == "mod.rs" || file.ends_with("/mod.rs") {
        file.rsplit_once('/').map_or("", |(dir, _)| dir)
    } else {
        file.trim_end_matches(".rs")
    };
    if dir.is_empty() { String::new() } else { format!("{dir}/") }
}

/// The modules the crate root `root` (`lib.rs`, `main.rs`, `bin/x.rs`) reaches among
/// `sources` (files by path inside `src`, and their texts), following `mod` lines as rustc does.
fn reach(root: &str, sources: &BTreeMap<String, String>) -> Tree {
    let mut tree = Tree::default();
    let mut todo = vec![(root.to_owned(), Module::new())];
    while let Some((file, module)) = todo.pop() {
        let (code, tests) = without_tests(&blank(&sources[&file]));
        let dir = children_dir(&file, module.is_empty());
        let file_of = |name: &str| {
            [format!("{dir}{name}.rs"), format!("{dir}{name}/mod.rs")].into_iter().find(|f| sources.contains_key(f))
        };
        for name in declared_modules(&code) {
            if let Some(child) = file_of(&name) {
                todo.push((child, module.iter().cloned().chain([name]).collect()));
            }
        }
        for name in tests {
            let folder = format!("{dir}{name}/");
            let test_file = file_of(&name);
            tree.test_files
                .extend(sources.keys().filter(|f| test_file.as_ref() == Some(*f) || f.starts_with(&folder)).cloned());
        }
        tree.codes.insert(module, (file, code));
    }
    tree
}

/// Which files use which, among the files one crate root reaches.
fn file_graph(tree: &Tree) -> Graph {
    let files: BTreeMap<Module, String> =
        tree.codes.iter().map(|(module, (file, _))| (module.clone(), file.clone())).collect();
    let read: BTreeMap<Module, Paths> = tree
        .codes
        .iter()
        .map(|(module, (_, code))| (module.clone(), paths(code, module, &declared_modules(code))))
        .collect();
    let reexports = read.iter().map(|(module, paths)| (module.clone(), paths.reexports.clone())).collect();
    let mut graph = Graph::new();
    for (module, paths) in &read {
        let file = &files[module];
        let uses = graph.entry(file.clone()).or_default();
        for path in &paths.uses {
            let used = &files[&target(path, &files, &reexports)];
            if used != file {
                uses.insert(used.clone());
            }
        }
    }
    graph
}

/// The crate roots among a package's files: its library, its main binary, and `bin/`'s.
fn crate_roots(sources: &BTreeMap<String, String>) -> Vec<String> {
    sources
        .keys()
        .filter(|file| {
            let parts: Vec<&str> = file.split('/').collect();
            matches!(parts[..], ["lib.rs" | "main.rs"] | ["bin", _] | ["bin", _, "main.rs"])
        })
        .cloned()
        .collect()
}

/// The folder of the workspace this test is built in: the nearest one up whose `Cargo.toml`
/// has a `[workspace]` table.
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|dir| {
            std::fs::read_to_string(dir.join("Cargo.toml"))
                .is_ok_and(|toml| toml.lines().any(|l| l.trim() == "[workspace]"))
        })
        .expect("this test is built inside a workspace")
        .to_owned()
}

/// The workspace's members as its `Cargo.toml` lists them (folders from the root), with a
/// trailing `/*` read as every folder there that holds a `Cargo.toml`.
fn members(root: &Path, manifest: &str) -> Vec<String> {
    let listed = manifest.split_once("members").and_then(|(_, rest)| rest.split_once('[')).map(|(_, rest)| rest);
    let listed = listed.and_then(|rest| rest.split_once(']')).map_or("", |(list, _)| list);
    let mut found = Vec::new();
    for line in listed.lines() {
        let line = line.split_once('#').map_or(line, |(code, _)| code);
        for member in line.split('"').skip(1).step_by(2) {
            let Some(parent) = member.strip_suffix("/*") else {
                found.push(member.to_owned());
                continue;
            };
            let mut inside: Vec<String> = std::fs::read_dir(root.join(parent))
                .into_iter()
                .flatten()
                .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
                .filter(|name| root.join(parent).join(name).join("Cargo.toml").is_file())
                .map(|name| format!("{parent}/{name}"))
                .collect();
            inside.sort();
            found.extend(inside);
        }
    }
    found
}

/// What reading a workspace found: the circles in each crate, and the files under a `src`
/// that no crate root reaches (so were not read).
#[derive(Debug, Default)]
struct Reading {
    members: Vec<String>,
    steps: usize,
    circles: Vec<Circle>,
    unread: Vec<String>,
}

/// A circle of files in one member's `src`: its steps, ending where they began.
#[derive(Debug)]
struct Circle {
    member: String,
    steps: Vec<String>,
}

impl std::fmt::Display for Circle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/src: {}", self.member, self.steps.join(" → "))
    }
}

/// Every member's `src`, read crate root by crate root.
fn read_workspace(root: &Path) -> Reading {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let mut reading = Reading::default();
    for member in members(root, &manifest) {
        let src = root.join(&member).join("src");
        if !src.is_dir() {
            continue;
        }
        let mut found = Vec::new();
        sources(&src, &src, &mut found);
        let sources: BTreeMap<String, String> = found.into_iter().collect();
        let mut read = BTreeSet::new();
        for crate_root in crate_roots(&sources) {
            let tree = reach(&crate_root, &sources);
            read.extend(tree.codes.values().map(|(file, _)| file.clone()).chain(tree.test_files.iter().cloned()));
            let graph = file_graph(&tree);
            reading.steps += graph.values().map(BTreeSet::len).sum::<usize>();
            let member = &member;
            reading.circles.extend(circles(graph).into_iter().map(|steps| Circle { member: member.clone(), steps }));
        }
        reading
            .unread
            .extend(sources.keys().filter(|file| !read.contains(*file)).map(|file| format!("{member}/src/{file}")));
        reading.members.push(member);
    }
    reading
}

/// A circle in `graph`, if there is one.
fn circle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(node: &str, graph: &Graph, path: &mut Vec<String>, done: &mut BTreeSet<String>) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|seen| seen == node) {
            let mut found = path[start..].to_vec();
            found.push(node.to_owned());
            return Some(found);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, graph, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph.keys().find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

/// The circles in `graph`, found one by one: each is broken at its first step before looking
/// for the next, so none is listed twice.
fn circles(mut graph: Graph) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    while let Some(steps) = circle(&graph) {
        graph.get_mut(&steps[0]).unwrap().remove(&steps[1]);
        found.push(steps);
    }
    found
}

#[test]
fn no_crate_of_the_workspace_has_a_circle_of_files() {
    let reading = read_workspace(&workspace_root());
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        reading.members.iter().any(|member| member.ends_with(&here)),
        "the workspace's members were not found: {:?}",
        reading.members
    );
    assert!(reading.steps > 100, "paths were not read: {} steps in {:?}", reading.steps, reading.members);
    assert!(
        reading.unread.is_empty(),
        "no crate root reaches these files by `mod` lines, so they were not read:\n{}",
        reading.unread.join("\n")
    );
    let found: Vec<String> = reading.circles.iter().map(Circle::to_string).collect();
    assert!(found.is_empty(), "files go round in circles (each from a file back to it):\n{}", found.join("\n"));
}

fn owned(files: &[(&str, &str)]) -> BTreeMap<String, String> {
    files.iter().map(|(file, text)| ((*file).to_owned(), (*text).to_owned())).collect()
}

#[test]
fn a_circle_is_found() {
    let graph: Graph = [
        ("a".to_owned(), BTreeSet::from(["b".to_owned()])),
        ("b".to_owned(), BTreeSet::from(["c".to_owned()])),
        ("c".to_owned(), BTreeSet::from(["a".to_owned()])),
    ]
    .into();
    assert_eq!(circle(&graph).unwrap(), ["a", "b", "c", "a"]);
    let line: Graph = [("a".to_owned(), BTreeSet::from(["b".to_owned()])), ("b".to_owned(), BTreeSet::new())].into();
    assert_eq!(circle(&line), None);
}

#[test]
fn paths_are_followed_to_the_file_that_defines_what_they_name() {
    let sources = owned(&[
        ("lib.rs", "mod parts;\nmod error;\npub use error::{Error, Result};\n"),
        ("error.rs", "use crate::parts::{Part, Kind as K};\npub enum Error { Bad(Part) }"),
        ("parts/mod.rs", "mod part;\nmod kind;\npub use part::Part;\npub(crate) use kind::Kind;\n"),
        ("parts/part.rs", "use super::kind::{self};\npub struct Part(kind::Kind);\n"),
        ("parts/kind.rs", "pub enum Kind { A }\nfn f() -> crate::Result<()> { Ok(()) }\n"),
    ]);
    let graph = file_graph(&reach("lib.rs", &sources));
    assert_eq!(graph["error.rs"], BTreeSet::from(["parts/part.rs".to_owned(), "parts/kind.rs".to_owned()]));
    assert_eq!(graph["parts/part.rs"], BTreeSet::from(["parts/kind.rs".to_owned()]));
    assert_eq!(graph["parts/mod.rs"], BTreeSet::new(), "re-exporting uses nothing");
    assert_eq!(graph["lib.rs"], BTreeSet::new());
    assert_eq!(circle(&graph).unwrap(), ["error.rs", "parts/kind.rs", "error.rs"]);
}

#[test]
fn comments_strings_and_tests_use_nothing() {
    let sources = owned(&[
        ("lib.rs", "mod a;\nmod b;\n#[cfg(test)]\nmod tests;\n"),
        (
            "a.rs",
            "// crate::b::x\n/* crate::b */\nconst S: &str = \"crate::b::x\";\nconst R: &str = r#\"crate::b\"#;\n\
             const C: char = '\"';\nfn f<'a>(x: &'a str) {}\n#[cfg(test)]\nmod tests {\n    use crate::b::x;\n}\n\
             pub(in crate::b) fn g() {}\n",
        ),
        ("b.rs", "use crate::a;\npub fn x() { let s = \"{\"; }\n"),
        ("tests.rs", "use crate::b::x;\nuse crate::a::f;\n"),
    ]);
    let tree = reach("lib.rs", &sources);
    assert_eq!(tree.test_files, BTreeSet::from(["tests.rs".to_owned()]));
    let graph = file_graph(&tree);
    assert_eq!(graph["a.rs"], BTreeSet::new());
    assert_eq!(graph["b.rs"], BTreeSet::from(["a.rs".to_owned()]));
    assert!(!graph.contains_key("tests.rs"));
    assert_eq!(circle(&graph), None);
}

#[test]
fn every_crate_root_is_read_with_the_modules_it_declares() {
    let sources = owned(&[
        ("lib.rs", "pub mod shared;\n"),
        ("shared.rs", "mod part;\nuse part::Part;\n"),
        ("shared/part.rs", "pub struct Part;\n"),
        ("main.rs", "mod cli;\nfn main() { cli::run() }\n"),
        ("cli/mod.rs", "mod parse;\npub fn run() { parse::go() }\n"),
        ("cli/parse.rs", "pub fn go() { crate::cli::run() }\n"),
        ("bin/tool/main.rs", "mod steps;\nfn main() { steps::one() }\n"),
        ("bin/tool/steps.rs", "pub fn one() {}\n"),
        ("bin/once.rs", "fn main() {}\n"),
        ("stray.rs", "pub fn lost() {}\n"),
    ]);
    assert_eq!(crate_roots(&sources), ["bin/once.rs", "bin/tool/main.rs", "lib.rs", "main.rs"]);
    assert_eq!(file_graph(&reach("lib.rs", &sources))["shared.rs"], BTreeSet::from(["shared/part.rs".to_owned()]));
    let main = file_graph(&reach("main.rs", &sources));
    assert!(!main.contains_key("shared.rs"), "a binary beside a library is a crate of its own");
    assert_eq!(circles(main), [["cli/mod.rs", "cli/parse.rs", "cli/mod.rs"]]);
    let tool = file_graph(&reach("bin/tool/main.rs", &sources));
    assert_eq!(tool["bin/tool/main.rs"], BTreeSet::from(["bin/tool/steps.rs".to_owned()]));
}

#[test]
fn members_are_read_from_the_workspace_manifest() {
    let root = tempfile::tempdir().unwrap();
    for member in ["crates/one", "crates/two", "crates/notes"] {
        std::fs::create_dir_all(root.path().join(member)).unwrap();
    }
    for member in ["crates/one", "crates/two"] {
        std::fs::write(root.path().join(member).join("Cargo.toml"), "").unwrap();
    }
    let manifest = "[workspace]\nmembers = [\n    # \"commented/out\",\n    \"crates/*\",\n    \"app\", \"tests\"\n]\nexclude = [\"fuzz\"]\n";
    assert_eq!(members(root.path(), manifest), ["crates/one", "crates/two", "app", "tests"]);
}
