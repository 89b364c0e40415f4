//! The file tools, `read_file`, `write_file` and `list_files`: what an agent may do with the
//! files in its session's workspace folder, and nothing outside it.
//!
//! Each takes the model's JSON input and returns `Ok(text)` for the model to read or
//! `Err(text)` as an error result; neither is ever empty, and every error says what to change.

use std::collections::BinaryHeap;
use std::ffi::OsStr;
use std::fs;
use std::path::Path;

use beckon_core::{Problems, json_type_name};
use serde_json::{Map, Value, json};

use super::workspace::{PATH_MAX_BYTES, PATH_MAX_DEPTH, Workspace, Written};
use crate::providers::ToolSpec;

/// Largest file `read_file` returns, in bytes.
pub(crate) const READ_MAX_BYTES: u64 = 256 * 1024;
/// Largest content `write_file` writes, in bytes.
pub(crate) const WRITE_MAX_BYTES: usize = 1024 * 1024;
/// Most entries `list_files` shows.
pub(crate) const LIST_MAX_ENTRIES: usize = 500;

/// The fields each tool takes; its schema lists exactly these.
const READ_FIELDS: &[&str] = &["path"];
const WRITE_FIELDS: &[&str] = &["path", "content"];
const LIST_FIELDS: &[&str] = &["path"];

const PATH_HINT: &str = "a path relative to the workspace folder, such as notes/todo.md";

/// The `read_file` tool: the whole text of one UTF-8 file of at most 256 KiB.
pub fn read_file(ws: &Workspace, input: &Value) -> Result<String, String> {
    let mut input = Input::new("read_file", input, READ_FIELDS, r#"{"path": "notes/todo.md"}"#)?;
    let path = input.required_string("path", PATH_HINT);
    let path = input.finish(path)?;
    let bytes = ws.read_bytes(path, READ_MAX_BYTES).map_err(|error| error.to_string())?;
    match String::from_utf8(bytes) {
        Ok(text) if text.is_empty() => Ok(format!("{path:?} is empty (0 bytes).")),
        Ok(text) => Ok(text),
        Err(error) => Err(format!(
            "{path:?} is not UTF-8 text (byte {} of {} is not valid UTF-8); read_file reads only text files",
            error.utf8_error().valid_up_to(),
            byte_count(error.as_bytes().len() as u64),
        )),
    }
}

/// The `write_file` tool: replaces (or creates) one file with the given text, at most 1 MiB,
/// creating missing folders on the way.
pub fn write_file(ws: &Workspace, input: &Value) -> Result<String, String> {
    let example = r#"{"path": "notes/todo.md", "content": "- buy milk\n"}"#;
    let mut input = Input::new("write_file", input, WRITE_FIELDS, example)?;
    let path = input.required_string("path", PATH_HINT);
    let content = input.required_string("content", "the file's complete new text");
    if let Some(content) = content
        && content.len() > WRITE_MAX_BYTES
    {
        input.problems.push(
            "content",
            format!(
                "is {} bytes; the limit is {WRITE_MAX_BYTES} bytes (1 MiB), so write less or split it across \
                 several files",
                content.len()
            ),
        );
    }
    let (path, content) = input.finish(path.zip(content))?;
    let written = ws.write_bytes(path, content.as_bytes()).map_err(|error| error.to_string())?;
    let verb = match written {
        Written::Created => "Created",
        Written::Replaced => "Replaced",
    };
    Ok(format!("{verb} {path:?}: {} written.", byte_count(content.len() as u64)))
}

/// The `list_files` tool: one folder's entries (the workspace folder's by default), sorted by
/// name, without descending into sub-folders or following symbolic links.
pub fn list_files(ws: &Workspace, input: &Value) -> Result<String, String> {
    let mut input = Input::new("list_files", input, LIST_FIELDS, r#"{"path": "notes"}"#)?;
    let path = input.optional_string("path", PATH_HINT);
    let path = input.finish(Some(path))?;
    // Models often say "" for "the top"; it means the same as leaving the path out.
    let relative = path.filter(|path| !path.is_empty()).unwrap_or(".");
    let dir = ws.resolve_existing(relative).map_err(|error| error.to_string())?;
    let shown = if dir == ws.root() { "The workspace folder".to_owned() } else { format!("{relative:?}") };
    let could_not = |error: std::io::Error| format!("could not list {relative:?}: {error}");
    if !fs::metadata(&dir).map_err(could_not)?.is_dir() {
        return Err(format!("{relative:?} is a file, not a folder; read_file reads it"));
    }

    // Keeps the first LIST_MAX_ENTRIES names in order without holding a huge folder in memory.
    let mut first = BinaryHeap::new();
    let mut total: usize = 0;
    for entry in fs::read_dir(&dir).map_err(could_not)? {
        first.push(entry.map_err(could_not)?.file_name());
        total += 1;
        if first.len() > LIST_MAX_ENTRIES {
            first.pop();
        }
    }
    if total == 0 {
        return Ok(format!("{shown} is empty."));
    }
    let names = first.into_sorted_vec();
    let noun = if total == 1 { "entry" } else { "entries" };
    let mut listing = format!("{shown} holds {total} {noun} (folders end with /):");
    for name in &names {
        listing.push('\n');
        listing.push_str(&describe_entry(&dir, name));
    }
    if total > names.len() {
        listing.push_str(&format!(
            "\n… and {} more, not shown: only the first {LIST_MAX_ENTRIES} by name are listed.",
            total - names.len()
        ));
    }
    Ok(listing)
}

/// The `read_file` tool as the model sees it.
pub fn read_file_spec() -> ToolSpec {
    ToolSpec {
        name: "read_file".into(),
        description: format!(
            "Read a text file from your workspace folder and get its whole content back. Only UTF-8 \
             text files of at most {READ_MAX_BYTES} bytes (256 KiB) can be read, and only inside the \
             workspace folder: paths are relative to it, use '/' between folders, and may not be \
             absolute or contain '..'. Use list_files to see what is there."
        ),
        input_schema: json!({
            "type": "object",
            "required": ["path"],
            "additionalProperties": false,
            "properties": {"path": path_schema("The file's path, relative to the workspace folder, such as notes/todo.md.")}
        }),
    }
}

/// The `write_file` tool as the model sees it.
pub fn write_file_spec() -> ToolSpec {
    ToolSpec {
        name: "write_file".into(),
        description: format!(
            "Write a text file in your workspace folder: creates it, or replaces its whole content if it \
             exists, and creates missing folders on the way. The content is at most {WRITE_MAX_BYTES} \
             bytes (1 MiB). Paths are relative to the workspace folder, use '/' between folders, and may \
             not be absolute or contain '..'; writing through symbolic links is refused."
        ),
        input_schema: json!({
            "type": "object",
            "required": ["path", "content"],
            "additionalProperties": false,
            "properties": {
                "path": path_schema("Where to write, relative to the workspace folder, such as notes/todo.md."),
                "content": {"type": "string", "description": "The file's complete new text. It replaces everything the file held."}
            }
        }),
    }
}

/// The `list_files` tool as the model sees it.
pub fn list_files_spec() -> ToolSpec {
    ToolSpec {
        name: "list_files".into(),
        description: format!(
            "List one folder of your workspace: its entries sorted by name, folders marked with a \
             trailing '/', files with their size in bytes, symbolic links marked and not followed. \
             Sub-folders are not listed; call again with their path. At most {LIST_MAX_ENTRIES} entries \
             are shown. Names are relative to the listed folder."
        ),
        input_schema: json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {"path": path_schema("The folder to list, relative to the workspace folder, such as notes. Leave it out to list the workspace folder itself.")}
        }),
    }
}

fn path_schema(description: &str) -> Value {
    json!({
        "type": "string",
        "minLength": 1,
        "maxLength": PATH_MAX_BYTES,
        "description": format!("{description} At most {PATH_MAX_DEPTH} folders deep.")
    })
}

/// One line of a listing.
fn describe_entry(dir: &Path, name: &OsStr) -> String {
    let mut shown = name.to_string_lossy().into_owned();
    // A newline in a name would forge listing lines; quoting makes it visible instead.
    if shown.chars().any(char::is_control) {
        shown = format!("{shown:?}");
    }
    if name.to_str().is_none() {
        shown.push_str(" (name is not valid UTF-8)");
    }
    match fs::symlink_metadata(dir.join(name)) {
        Ok(meta) if meta.file_type().is_symlink() => format!("{shown} (symbolic link, not followed)"),
        Ok(meta) if meta.is_dir() => format!("{shown}/"),
        Ok(meta) if meta.is_file() => format!("{shown} ({})", byte_count(meta.len())),
        Ok(_) => format!("{shown} (pipe, socket or device)"),
        Err(error) => format!("{shown} (could not be examined: {error})"),
    }
}

fn byte_count(n: u64) -> String {
    if n == 1 { "1 byte".to_owned() } else { format!("{n} bytes") }
}

/// A tool's JSON input, read field by field; every problem is collected so the model can fix
/// all of them in one go.
struct Input<'a> {
    fields: &'a Map<String, Value>,
    problems: Problems,
}

impl<'a> Input<'a> {
    /// Opens `input` as an object whose fields must all be in `allowed`.
    fn new(tool: &str, input: &'a Value, allowed: &[&str], example: &str) -> Result<Self, String> {
        let Value::Object(fields) = input else {
            return Err(format!("{tool} takes a JSON object such as {example}, not {}", json_type_name(input)));
        };
        let mut problems = Problems::new();
        for key in fields.keys().filter(|key| !allowed.contains(&key.as_str())) {
            problems
                .push(key.as_str(), format!("unknown field; remove it ({tool} takes only: {})", allowed.join(", ")));
        }
        Ok(Self { fields, problems })
    }

    /// A field that must be present and a string; JSON `null` counts as missing.
    fn required_string(&mut self, key: &str, what: &str) -> Option<&'a str> {
        if self.fields.get(key).is_none_or(Value::is_null) {
            self.problems.push(key, format!("is required: {what}"));
            return None;
        }
        self.optional_string(key, what)
    }

    /// A field that may be left out (or `null`) but otherwise must be a string.
    fn optional_string(&mut self, key: &str, what: &str) -> Option<&'a str> {
        match self.fields.get(key)? {
            Value::Null => None,
            Value::String(text) => Some(text),
            other => {
                self.problems.push(key, format!("must be a string ({what}), not {}", json_type_name(other)));
                None
            }
        }
    }

    /// `value` when no problem was found, else every problem.
    fn finish<T>(self, value: Option<T>) -> Result<T, String> {
        match (self.problems.is_empty(), value) {
            (true, Some(value)) => Ok(value),
            (true, None) => Err("the input could not be read".to_owned()),
            (false, _) => Err(self.problems.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        (dir, ws)
    }

    #[test]
    fn every_problem_with_the_input_is_reported_at_once() {
        let (_dir, ws) = workspace();
        let error = write_file(&ws, &json!({"path": 7, "text": "x", "mode": 1})).unwrap_err();
        assert!(error.contains("text: unknown field; remove it (write_file takes only: path, content)"), "{error}");
        assert!(error.contains("mode: unknown field"), "{error}");
        assert!(error.contains("path: must be a string"), "{error}");
        assert!(error.contains("not a number"), "{error}");
        assert!(error.contains("content: is required"), "{error}");
        assert_eq!(error.lines().count(), 4, "{error}");
    }

    #[test]
    fn input_that_is_not_an_object_is_refused_with_an_example() {
        let (_dir, ws) = workspace();
        let error = read_file(&ws, &json!("notes.md")).unwrap_err();
        assert_eq!(error, r#"read_file takes a JSON object such as {"path": "notes/todo.md"}, not a string"#);
        assert!(list_files(&ws, &json!([])).unwrap_err().contains("not an array"));
    }

    #[test]
    fn null_counts_as_missing() {
        let (_dir, ws) = workspace();
        assert!(read_file(&ws, &json!({"path": null})).unwrap_err().starts_with("path: is required"));
        assert!(list_files(&ws, &json!({"path": null})).unwrap().contains("is empty"));
    }

    #[test]
    fn list_files_takes_an_empty_path_or_dot_as_the_workspace_folder() {
        let (_dir, ws) = workspace();
        fs::write(ws.root().join("a"), "x").unwrap();
        let top = list_files(&ws, &json!({})).unwrap();
        assert_eq!(top, "The workspace folder holds 1 entry (folders end with /):\na (1 byte)");
        assert_eq!(list_files(&ws, &json!({"path": ""})).unwrap(), top);
        assert_eq!(list_files(&ws, &json!({"path": "."})).unwrap(), top);
    }

    #[test]
    fn a_name_with_a_newline_cannot_forge_a_listing_line() {
        let (_dir, ws) = workspace();
        fs::write(ws.root().join("a\nfake.txt (9 bytes)"), "").unwrap();
        let listing = list_files(&ws, &json!({})).unwrap();
        assert_eq!(listing.lines().count(), 2, "{listing}");
        assert!(listing.contains(r#""a\nfake.txt (9 bytes)" (0 bytes)"#), "{listing}");
    }

    #[test]
    fn each_schema_lists_exactly_the_fields_its_tool_takes() {
        for (spec, fields, required) in [
            (read_file_spec(), READ_FIELDS, &["path"][..]),
            (write_file_spec(), WRITE_FIELDS, &["path", "content"][..]),
            (list_files_spec(), LIST_FIELDS, &[][..]),
        ] {
            let schema = &spec.input_schema;
            assert_eq!(schema["type"], "object", "{}", spec.name);
            assert_eq!(schema["additionalProperties"], false, "{}", spec.name);
            let mut properties: Vec<&str> =
                schema["properties"].as_object().unwrap().keys().map(String::as_str).collect();
            let mut expected = fields.to_vec();
            properties.sort_unstable();
            expected.sort_unstable();
            assert_eq!(properties, expected, "{}", spec.name);
            let listed: Vec<&str> = schema
                .get("required")
                .map(|r| r.as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect())
                .unwrap_or_default();
            assert_eq!(listed, required, "{}", spec.name);
            assert!(spec.description.len() > 80, "{}", spec.name);
        }
    }

    #[test]
    fn specs_are_named_after_their_tools() {
        let names = [read_file_spec().name, write_file_spec().name, list_files_spec().name];
        assert_eq!(names, ["read_file", "write_file", "list_files"]);
    }
}
