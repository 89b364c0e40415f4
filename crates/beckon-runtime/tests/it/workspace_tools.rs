//! The file tools against real folders: what an agent can do in its workspace, and every way
//! out of it that must stay shut.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use beckon_runtime::tools::{Workspace, WorkspaceError, list_files, read_file, write_file};
use serde_json::{Value, json};
use tempfile::TempDir;

/// The signature all three tools share.
type Tool = fn(&Workspace, &Value) -> Result<String, String>;

const READ_LIMIT: usize = 256 * 1024;
const WRITE_LIMIT: usize = 1024 * 1024;

/// A workspace at `<tmp>/ws` next to a folder `<tmp>/outside` holding `secret.txt`.
struct Fixture {
    _dir: TempDir,
    ws: Workspace,
    outside: PathBuf,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::open(dir.path().join("ws")).unwrap();
        let outside = fs::canonicalize(dir.path()).unwrap().join("outside");
        fs::create_dir(&outside).unwrap();
        fs::write(outside.join("secret.txt"), "top secret").unwrap();
        Fixture { _dir: dir, ws, outside }
    }

    fn inside(&self, relative: &str) -> PathBuf {
        self.ws.root().join(relative)
    }

    fn read(&self, path: &str) -> Result<String, String> {
        read_file(&self.ws, &json!({ "path": path }))
    }

    fn write(&self, path: &str, content: &str) -> Result<String, String> {
        write_file(&self.ws, &json!({ "path": path, "content": content }))
    }

    fn list(&self, path: &str) -> Result<String, String> {
        list_files(&self.ws, &json!({ "path": path }))
    }

    fn assert_outside_untouched(&self) {
        let names: Vec<_> = fs::read_dir(&self.outside).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["secret.txt"], "something was created outside the workspace");
        assert_eq!(fs::read_to_string(self.outside.join("secret.txt")).unwrap(), "top secret");
    }
}

fn assert_refused(result: Result<String, String>, expected: &str) {
    match result {
        Ok(text) => panic!("expected a refusal containing {expected:?}, got success: {text}"),
        Err(error) => assert!(error.contains(expected), "expected {expected:?} in {error:?}"),
    }
}

fn assert_no_secret(result: &Result<String, String>) {
    let text = match result {
        Ok(text) | Err(text) => text,
    };
    assert!(!text.contains("top secret"), "the outside file leaked: {text}");
}

#[test]
fn write_then_read_then_list_round_trips() {
    let f = Fixture::new();
    assert_eq!(f.write("hello.txt", "Hello, world!\n").unwrap(), r#"Created "hello.txt": 14 bytes written."#);
    assert_eq!(f.read("hello.txt").unwrap(), "Hello, world!\n");
    assert_eq!(f.write("hello.txt", "Bye").unwrap(), r#"Replaced "hello.txt": 3 bytes written."#);
    assert_eq!(f.read("./hello.txt").unwrap(), "Bye");
    f.write("docs/guide.md", "# Guide").unwrap();
    assert_eq!(
        list_files(&f.ws, &json!({})).unwrap(),
        "The workspace folder holds 2 entries (folders end with /):\ndocs/\nhello.txt (3 bytes)"
    );
    assert_eq!(f.list("docs").unwrap(), "\"docs\" holds 1 entry (folders end with /):\nguide.md (7 bytes)");
}

#[test]
fn writing_creates_missing_folders_inside_the_workspace() {
    let f = Fixture::new();
    f.write("a/b/c/d.txt", "deep").unwrap();
    assert!(f.inside("a/b/c").is_dir());
    assert_eq!(fs::read_to_string(f.inside("a/b/c/d.txt")).unwrap(), "deep");
    assert_eq!(f.read("a//b/./c/d.txt").unwrap(), "deep");
    assert_eq!(f.list("a/b").unwrap(), "\"a/b\" holds 1 entry (folders end with /):\nc/");
}

#[test]
fn writing_under_a_file_is_refused() {
    let f = Fixture::new();
    f.write("a", "file").unwrap();
    assert_refused(f.write("a/b.txt", "x"), r#""a" is a file, not a folder"#);
    assert_refused(f.read("a/b.txt"), "is a file, not a folder");
    assert_refused(f.list("a"), r#""a" is a file, not a folder; read_file reads it"#);
}

#[test]
fn folders_are_not_files() {
    let f = Fixture::new();
    f.write("dir/x", "x").unwrap();
    assert_refused(f.read("dir"), r#""dir" is a folder, not a file"#);
    assert_refused(f.write("dir", "x"), r#""dir" is a folder, not a file"#);
    assert_refused(f.write(".", "x"), "is a folder, not a file");
}

#[test]
fn absolute_paths_are_refused() {
    let f = Fixture::new();
    assert_refused(f.read("/etc/passwd"), r#""/etc/passwd" is an absolute path"#);
    assert_refused(f.write("/etc/passwd", "x"), "is an absolute path");
    assert_refused(f.list("/etc"), "is an absolute path");
    let outside_secret = f.outside.join("secret.txt");
    let result = f.read(outside_secret.to_str().unwrap());
    assert_no_secret(&result);
    assert_refused(result, "is an absolute path");
}

#[test]
fn parent_components_are_refused_however_they_are_spelled() {
    let f = Fixture::new();
    fs::create_dir(f.inside("a")).unwrap();
    for path in ["../x", "a/../../x", "a/./../../x", "..", "../outside/secret.txt", "a/.."] {
        assert_refused(f.read(path), "contains '..'");
        assert_refused(f.write(path, "x"), "contains '..'");
        assert_refused(f.list(path), "contains '..'");
    }
    f.assert_outside_untouched();
    assert!(!f.ws.root().parent().unwrap().join("x").exists());
}

#[test]
fn windows_style_paths_are_refused() {
    let f = Fixture::new();
    for path in ["..\\outside\\secret.txt", "C:\\Windows", "c:/x", "a\\b"] {
        assert_refused(f.read(path), "looks like a Windows path");
        assert_refused(f.write(path, "x"), "looks like a Windows path");
    }
}

#[test]
fn a_link_to_a_file_outside_can_be_neither_read_nor_written_through() {
    let f = Fixture::new();
    symlink(f.outside.join("secret.txt"), f.inside("link.txt")).unwrap();
    let read = f.read("link.txt");
    assert_no_secret(&read);
    assert_refused(read, r#""link.txt" leads outside the workspace folder"#);
    assert_refused(
        f.write("link.txt", "overwritten"),
        r#""link.txt" is a symbolic link; writing through links is refused"#,
    );
    f.assert_outside_untouched();
    assert!(fs::symlink_metadata(f.inside("link.txt")).unwrap().file_type().is_symlink());
}

#[test]
fn a_linked_folder_outside_cannot_be_read_written_or_listed() {
    let f = Fixture::new();
    symlink(&f.outside, f.inside("out")).unwrap();
    let read = f.read("out/secret.txt");
    assert_no_secret(&read);
    assert_refused(read, "leads outside the workspace folder");
    assert_refused(f.read("out/missing.txt"), "leads outside the workspace folder");
    assert_refused(f.write("out/new.txt", "x"), "leads outside the workspace folder");
    assert_refused(f.write("out/secret.txt", "x"), "leads outside the workspace folder");
    assert_refused(f.write("out/sub/new.txt", "x"), "leads outside the workspace folder");
    let listing = f.list("out");
    assert!(!listing.as_ref().is_ok_and(|text| text.contains("secret.txt")));
    assert_refused(listing, "leads outside the workspace folder");
    f.assert_outside_untouched();
}

#[test]
fn a_link_in_the_middle_of_a_deeper_path_is_caught_too() {
    let f = Fixture::new();
    fs::create_dir_all(f.inside("a/b")).unwrap();
    symlink(&f.outside, f.inside("a/b/c")).unwrap();
    assert_refused(f.read("a/b/c/secret.txt"), "leads outside");
    assert_refused(f.write("a/b/c/d/e.txt", "x"), "leads outside");
    f.assert_outside_untouched();
}

#[test]
fn links_that_stay_inside_the_workspace_may_be_read_and_written_into() {
    let f = Fixture::new();
    f.write("real/file.txt", "inside").unwrap();
    symlink(f.inside("real"), f.inside("alias")).unwrap();
    symlink("real/file.txt", f.inside("file-link.txt")).unwrap();
    assert_eq!(f.read("file-link.txt").unwrap(), "inside");
    assert_eq!(f.read("alias/file.txt").unwrap(), "inside");
    f.write("alias/new.txt", "via alias").unwrap();
    assert_eq!(fs::read_to_string(f.inside("real/new.txt")).unwrap(), "via alias");
    // Even a link that stays inside is never written through.
    assert_refused(f.write("file-link.txt", "x"), "is a symbolic link");
}

#[test]
fn a_dangling_link_is_never_a_write_target() {
    let f = Fixture::new();
    let target = f.outside.join("created-by-agent.txt");
    symlink(&target, f.inside("dangling")).unwrap();
    assert_refused(f.write("dangling", "x"), "is a symbolic link; writing through links is refused");
    assert!(!target.exists());
    assert_refused(f.read("dangling"), r#""dangling" is a symbolic link to something that does not exist"#);
    symlink(f.outside.join("no-such-folder"), f.inside("dangling-dir")).unwrap();
    assert_refused(f.write("dangling-dir/x.txt", "x"), "is a symbolic link to something that does not exist");
    f.assert_outside_untouched();
}

#[test]
fn listing_shows_links_without_following_them() {
    let f = Fixture::new();
    symlink(&f.outside, f.inside("out")).unwrap();
    symlink(f.outside.join("secret.txt"), f.inside("secret-link")).unwrap();
    f.write("z.txt", "zz").unwrap();
    let listing = list_files(&f.ws, &json!({})).unwrap();
    assert_eq!(
        listing,
        "The workspace folder holds 3 entries (folders end with /):\n\
         out (symbolic link, not followed)\n\
         secret-link (symbolic link, not followed)\n\
         z.txt (2 bytes)"
    );
}

#[test]
fn nul_bytes_control_characters_and_empty_paths_are_refused() {
    let f = Fixture::new();
    assert_refused(f.read("a\0b"), "NUL byte");
    assert_refused(f.write("a\0b", "x"), "NUL byte");
    assert_refused(f.read("a\u{1b}[2Jb"), "control character");
    assert_refused(f.read(""), "the path is empty");
    assert_refused(f.write("", "x"), "the path is empty");
}

#[test]
fn over_long_and_over_deep_paths_are_refused() {
    let f = Fixture::new();
    let long = "a".repeat(1025);
    assert_refused(f.read(&long), "the path is 1025 bytes long; the limit is 1024 bytes");
    assert_refused(f.write(&long, "x"), "the limit is 1024 bytes");
    let deep = vec!["d"; 33].join("/");
    assert_refused(f.write(&deep, "x"), "is 33 folders deep; the limit is 32");
    assert!(!f.inside("d").exists(), "no folder may be made for a refused path");
    let deepest_allowed = vec!["d"; 32].join("/");
    f.write(&deepest_allowed, "ok").unwrap();
    assert_eq!(f.read(&deepest_allowed).unwrap(), "ok");
}

#[test]
fn reads_stop_at_256_kib() {
    let f = Fixture::new();
    fs::write(f.inside("fits.txt"), "a".repeat(READ_LIMIT)).unwrap();
    assert_eq!(f.read("fits.txt").unwrap().len(), READ_LIMIT);
    fs::write(f.inside("big.txt"), "a".repeat(READ_LIMIT + 1)).unwrap();
    assert_refused(f.read("big.txt"), r#""big.txt" is 262145 bytes; the limit is 262144 bytes"#);
    // The message gives the file's real size, not just "more than the limit".
    fs::File::create(f.inside("huge.log")).unwrap().set_len(10_000_000).unwrap();
    assert_refused(f.read("huge.log"), r#""huge.log" is 10000000 bytes; the limit is 262144 bytes"#);
}

#[test]
fn writes_stop_at_1_mib_and_refused_writes_change_nothing() {
    let f = Fixture::new();
    let fits = "b".repeat(WRITE_LIMIT);
    assert_eq!(f.write("fits.txt", &fits).unwrap(), r#"Created "fits.txt": 1048576 bytes written."#);
    assert_eq!(fs::metadata(f.inside("fits.txt")).unwrap().len(), WRITE_LIMIT as u64);
    assert_refused(
        f.write("dir/big.txt", &"b".repeat(WRITE_LIMIT + 1)),
        "content: is 1048577 bytes; the limit is 1048576 bytes",
    );
    assert!(!f.inside("dir").exists(), "a refused write must not create folders");
    assert_refused(f.write("fits.txt", &"c".repeat(WRITE_LIMIT + 1)), "the limit is 1048576 bytes");
    assert_eq!(fs::read_to_string(f.inside("fits.txt")).unwrap(), fits);
}

#[test]
fn non_utf8_files_are_refused_as_not_text() {
    let f = Fixture::new();
    fs::write(f.inside("image.png"), [0x89, b'P', b'N', b'G', 0xff, 0xfe]).unwrap();
    assert_refused(f.read("image.png"), r#""image.png" is not UTF-8 text (byte 0 of 6 bytes is not valid UTF-8)"#);
    fs::write(f.inside("almost.txt"), b"caf\xc3").unwrap();
    assert_refused(f.read("almost.txt"), "byte 3 of 4 bytes is not valid UTF-8");
}

#[test]
fn empty_files_and_folders_are_described_not_returned_as_nothing() {
    let f = Fixture::new();
    assert_eq!(list_files(&f.ws, &json!({})).unwrap(), "The workspace folder is empty.");
    assert_eq!(f.write("empty.txt", "").unwrap(), r#"Created "empty.txt": 0 bytes written."#);
    assert_eq!(f.read("empty.txt").unwrap(), r#""empty.txt" is empty (0 bytes)."#);
    fs::create_dir(f.inside("hollow")).unwrap();
    assert_eq!(f.list("hollow").unwrap(), r#""hollow" is empty."#);
}

#[test]
fn missing_files_say_so() {
    let f = Fixture::new();
    assert_refused(f.read("nope.txt"), r#""nope.txt" does not exist in the workspace folder"#);
    assert_refused(f.list("nope"), r#""nope" does not exist"#);
}

#[test]
fn listings_are_sorted_and_cut_at_500_entries() {
    let f = Fixture::new();
    for i in 0..510 {
        fs::write(f.inside(&format!("f{i:04}")), "").unwrap();
    }
    let listing = list_files(&f.ws, &json!({})).unwrap();
    let lines: Vec<&str> = listing.lines().collect();
    assert_eq!(lines[0], "The workspace folder holds 510 entries (folders end with /):");
    assert_eq!(lines[1], "f0000 (0 bytes)");
    assert_eq!(lines[500], "f0499 (0 bytes)");
    assert_eq!(lines[501], "… and 10 more, not shown: only the first 500 by name are listed.");
    assert_eq!(lines.len(), 502);
}

#[test]
fn bad_inputs_name_the_field() {
    let f = Fixture::new();
    let cases: [(Tool, Value, &str); 8] = [
        (read_file, json!({}), "path: is required"),
        (read_file, json!({"path": 3}), "path: must be a string"),
        (read_file, json!({"path": "a", "encoding": "utf8"}), "encoding: unknown field; remove it"),
        (write_file, json!({"path": "a"}), "content: is required"),
        (write_file, json!({"content": "x"}), "path: is required"),
        (write_file, json!({"path": ["a"], "content": "x"}), "path: must be a string"),
        (write_file, json!({"path": "a", "content": {"text": "x"}}), "content: must be a string"),
        (list_files, json!({"path": "a", "recursive": true}), "recursive: unknown field"),
    ];
    for (tool, input, expected) in cases {
        assert_refused(tool(&f.ws, &input), expected);
    }
    assert!(!f.inside("a").exists(), "a refused write must not write anything");
}

#[test]
fn resolve_returns_canonical_paths_inside_the_root() {
    let f = Fixture::new();
    f.write("a/b.txt", "x").unwrap();
    let resolved = f.ws.resolve_existing("a/./b.txt").unwrap();
    assert_eq!(resolved, f.ws.root().join("a/b.txt"));
    let target = f.ws.resolve_for_write("new/dir/c.txt").unwrap();
    assert_eq!(target, f.ws.root().join("new/dir/c.txt"));
    assert!(f.inside("new/dir").is_dir() && !target.exists());
    assert!(matches!(f.ws.resolve_existing("../outside"), Err(WorkspaceError::ParentComponent { .. })));
    assert!(Path::new(f.ws.root()).is_absolute());
}
