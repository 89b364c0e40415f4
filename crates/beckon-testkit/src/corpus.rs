//! Reads the hostile-input corpus, `tests/hostile/` at the repository's root. The files stay
//! there, outside this crate, because the UI's tests and the real window's tests read them too.
//!
//! Inputs too large or too odd to store literally are described by a spec (see the folder's
//! README.md): a JSON string is its UTF-8 bytes, `{"hex": "ff fe"}` raw bytes, `{"repeat": spec,
//! "times": n}` a repetition, and `{"concat": [spec, …]}` or a plain array a concatenation.

use std::path::PathBuf;

use serde_json::Value;

/// The corpus folder.
pub fn dir() -> PathBuf {
    // This crate sits at `crates/beckon-testkit`.
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/hostile")
}

/// One corpus file, parsed.
pub fn load(file: &str) -> Value {
    let path = dir().join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("cannot read {}: {err}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|err| panic!("{} is not valid JSON: {err}", path.display()))
}

/// The `cases` of one corpus file, each with a `name`.
pub fn cases(file: &str) -> Vec<Value> {
    let cases = load(file)["cases"].as_array().cloned().unwrap_or_else(|| panic!("{file} has no cases"));
    assert!(!cases.is_empty(), "{file} has no cases");
    for case in &cases {
        assert!(case["name"].is_string(), "{file}: a case without a name: {case}");
    }
    cases
}

/// A case's name, for messages.
pub fn name(case: &Value) -> &str {
    case["name"].as_str().unwrap_or("(unnamed)")
}

/// The bytes a spec describes.
pub fn bytes(spec: &Value) -> Vec<u8> {
    match spec {
        Value::String(text) => text.as_bytes().to_vec(),
        Value::Array(parts) => parts.iter().flat_map(bytes).collect(),
        Value::Object(map) if map.contains_key("hex") => {
            let hex: String = map["hex"].as_str().expect("hex is text").split_whitespace().collect();
            (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex digits")).collect()
        }
        Value::Object(map) if map.contains_key("repeat") => {
            let times = usize::try_from(map["times"].as_u64().expect("times is a count")).expect("times fits");
            bytes(&map["repeat"]).repeat(times)
        }
        Value::Object(map) if map.contains_key("concat") => bytes(&map["concat"]),
        other => panic!("not a byte spec: {other}"),
    }
}

/// The text a spec describes; it must be UTF-8.
pub fn text(spec: &Value) -> String {
    String::from_utf8(bytes(spec)).unwrap_or_else(|_| panic!("spec is not UTF-8 text: {spec}"))
}

/// A JSON value with every `{"$text": spec}` inside it replaced by the text it describes.
pub fn expand(value: &Value) -> Value {
    match value {
        Value::Object(map) if map.len() == 1 && map.contains_key("$text") => Value::String(text(&map["$text"])),
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), expand(v))).collect()),
        Value::Array(items) => Value::Array(items.iter().map(expand).collect()),
        other => other.clone(),
    }
}

/// The `accepted` and `refused` texts of `texts.json`: (name, text).
pub fn texts(group: &str) -> Vec<(String, String)> {
    let all = load("texts.json");
    let list = all[group].as_array().unwrap_or_else(|| panic!("texts.json has no {group}"));
    list.iter().map(|entry| (name(entry).to_owned(), text(&entry["text"]))).collect()
}

/// Whether a text may go where a single line is wanted (labels, headers).
pub fn single_line(text: &str) -> bool {
    !text.contains(['\n', '\r', '\t'])
}
