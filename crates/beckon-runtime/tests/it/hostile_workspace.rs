//! The hostile-input corpus (`tests/hostile/workspace.json`) against the workspace file tools:
//! every way out of the workspace, every bad name, every oversize input is refused with an
//! error result that says why, and nothing outside the workspace is read or changed.

use beckon_testkit::corpus;

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use beckon_runtime::tools::{Workspace, list_files, read_file, write_file};
use serde_json::Value;

const SECRET: &str = "top secret";

/// Every entry under `dir` (links not followed) with what it holds: a file's bytes, a link's
/// target, or nothing for a folder.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut found = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            let meta = fs::symlink_metadata(&path).unwrap();
            let held = if meta.file_type().is_symlink() {
                fs::read_link(&path).unwrap().into_os_string().into_encoded_bytes()
            } else if meta.is_dir() {
                stack.push(path.clone());
                Vec::new()
            } else {
                fs::read(&path).unwrap()
            };
            found.insert(path.strip_prefix(dir).unwrap().to_path_buf(), held);
        }
    }
    found
}

#[test]
fn hostile_tool_inputs_are_refused_and_nothing_outside_is_touched() {
    let base = tempfile::tempdir().unwrap();
    let base_path = fs::canonicalize(base.path()).unwrap();
    let outside = base_path.join("outside");
    fs::create_dir(&outside).unwrap();
    fs::write(outside.join("secret.txt"), SECRET).unwrap();
    // Larger than the workspace's budget: counting it through `dir_out` would refuse every write.
    fs::write(outside.join("large.bin"), vec![0u8; 2 << 20]).unwrap();
    let budget = corpus::load("workspace.json")["max_workspace_bytes"].as_u64().unwrap();
    let ws = Workspace::open(base_path.join("ws")).unwrap().limited_to(budget);
    let root = ws.root().to_path_buf();
    fs::create_dir(root.join("notes")).unwrap();
    fs::write(root.join("notes/todo.md"), "- buy milk\n").unwrap();
    symlink(outside.join("secret.txt"), root.join("link_out")).unwrap();
    symlink(&outside, root.join("dir_out")).unwrap();
    symlink("/", root.join("root")).unwrap();
    symlink(outside.join("missing.txt"), root.join("broken")).unwrap();
    symlink("loop_b", root.join("loop_a")).unwrap();
    symlink("loop_a", root.join("loop_b")).unwrap();
    let outside_before = tree(&outside);
    let escape = PathBuf::from("/tmp/beckon-escape.txt");
    let escape_existed = escape.exists();

    for case in corpus::cases("workspace.json") {
        let name = corpus::name(&case);
        let input = corpus::expand(&case["input"]);
        let inside_before = tree(&root);
        let result = match case["tool"].as_str().unwrap() {
            "read_file" => read_file(&ws, &input),
            "write_file" => write_file(&ws, &input),
            "list_files" => list_files(&ws, &input),
            other => panic!("{name}: no tool {other}"),
        };
        match (case["error_contains"].as_str(), case["ok_contains"].as_str(), &result) {
            (Some(expected), None, Err(error)) => {
                assert!(error.contains(expected), "{name}: {expected:?} not in {error:?}");
                assert_eq!(tree(&root), inside_before, "{name}: a refused call changed the workspace");
            }
            (None, Some(expected), Ok(text)) => {
                assert!(text.contains(expected), "{name}: {expected:?} not in {text:?}")
            }
            _ => panic!("{name}: unexpected {result:?}"),
        }
        let text = match &result {
            Ok(text) | Err(text) => text,
        };
        assert!(!text.is_empty(), "{name}: an empty result");
        assert!(!text.contains(SECRET) && !text.contains("root:x:0:0"), "{name}: something outside leaked: {text}");
        assert_eq!(tree(&outside), outside_before, "{name}: something outside the workspace changed");
        assert_eq!(escape.exists(), escape_existed, "{name}: a file was written at {}", escape.display());
    }
    // What was accepted is there, byte-for-byte, under its literal name.
    let written = fs::read(root.join("notes/<img src=x onerror=alert(1)>.html")).unwrap();
    assert_eq!(written, "<script>alert(1)</script>\u{0}\u{1b}[2J".as_bytes());
    let read = read_file(&ws, &serde_json::json!({"path": "'; DROP TABLE x;--.sql"})).unwrap();
    assert_eq!(read, "SELECT 1;");
    let listing = list_files(&ws, &Value::Object(serde_json::Map::new())).unwrap();
    assert!(listing.contains("'; DROP TABLE x;--.sql (9 bytes)"), "{listing}");
}
