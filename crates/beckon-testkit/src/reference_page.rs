//! A reference page of the book written from the code (the HTTP API from `openapi.json`,
//! settings.json from its types): what its tests share. A test builds the page as Markdown and
//! hands it to [`check`], which rewrites the page when `BECKON_UPDATE_DOCS=1` and otherwise
//! fails naming each section, and each table row in it, that differs from the code. JSON
//! Schemas are read into table cells by [`type_text`].

use std::path::Path;

use serde_json::Value;

/// Holds the page at `path` in the repository `repo` to `page`: rewrites it when
/// `BECKON_UPDATE_DOCS=1`, else fails naming what is stale and how to rewrite it
/// (`rewrite_with`, the command).
pub fn check(repo: &Path, path: &str, page: &str, rewrite_with: &str) {
    let (name, path) = (path, repo.join(path));
    if std::env::var_os("BECKON_UPDATE_DOCS").is_some_and(|value| value == "1") {
        std::fs::write(&path, page).unwrap();
        return;
    }
    let written = std::fs::read_to_string(&path).unwrap_or_default();
    if written == page {
        return;
    }
    let stale = differences(&written, page);
    panic!("{name} is stale: {}. Rewrite it with {rewrite_with}", stale.join("; "));
}

/// What differs between the page as written and as the code has it, by section and row.
fn differences(written: &str, page: &str) -> Vec<String> {
    let old = sections(written);
    let new = sections(page);
    let mut stale = Vec::new();
    for (name, text) in &new {
        match old.iter().find(|(old_name, _)| old_name == name) {
            Some((_, old_text)) if old_text == text => {}
            Some((_, old_text)) => {
                let rows = row_differences(old_text, text);
                if rows.is_empty() {
                    stale.push(format!("{name}: its text changed"));
                } else {
                    stale.push(format!("{name}: {}", rows.join(", ")));
                }
            }
            None => stale.push(format!("{name}: not on the page")),
        }
    }
    for (name, _) in &old {
        if !new.iter().any(|(new_name, _)| new_name == name) {
            stale.push(format!("{name}: on the page, but not in the code"));
        }
    }
    if stale.is_empty() {
        stale.push("the order of its sections".to_owned());
    }
    stale
}

/// A page's sections, each named by its heading (`## …`, `### …`), the text before the first
/// one named "the page's header".
fn sections(page: &str) -> Vec<(String, String)> {
    let mut out = vec![("the page's header".to_owned(), String::new())];
    for line in page.lines() {
        if let Some(title) = line.strip_prefix("### ").or_else(|| line.strip_prefix("## ")) {
            out.push((format!("section {title}"), String::new()));
        }
        let (_, text) = out.last_mut().unwrap();
        text.push_str(line);
        text.push('\n');
    }
    out
}

/// The table rows (by their first cell) that differ between two versions of a section.
fn row_differences(old: &str, new: &str) -> Vec<String> {
    let rows = |text: &str| -> Vec<(String, String)> {
        text.lines()
            .filter(|line| line.starts_with("| ") && !line.starts_with("|---"))
            .filter_map(|line| Some((line.split(" | ").next()?.trim_start_matches("| ").to_owned(), line.to_owned())))
            .collect()
    };
    let (old, new) = (rows(old), rows(new));
    let mut out = Vec::new();
    for (first, line) in &new {
        match old.iter().find(|(old_first, _)| old_first == first) {
            Some((_, old_line)) if old_line == line => {}
            Some(_) => out.push(format!("row {first} changed")),
            None => out.push(format!("row {first} is not on the page")),
        }
    }
    for (first, _) in &old {
        if !new.iter().any(|(new_first, _)| new_first == first) {
            out.push(format!("row {first} is on the page, but not in the code"));
        }
    }
    out
}

/// mdBook's id for a heading: its text in lower case, spaces as `-`, other punctuation dropped.
pub fn heading_id(heading: &str) -> String {
    heading
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

/// Text made safe for a Markdown table cell: on one line, `|` escaped, and `<…>` outside code
/// shown as written rather than taken for HTML.
pub fn cell(text: &str) -> String {
    let mut out = String::new();
    let mut in_code = false;
    for c in text.replace('\n', " ").chars() {
        match c {
            '`' => {
                in_code = !in_code;
                out.push(c);
            }
            '|' => out.push_str("\\|"),
            '<' if !in_code => out.push_str("&lt;"),
            '>' if !in_code => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// A JSON Schema's type in words for a table cell: `string`, `integer or null`, `array of …`,
/// one of its values, with its bounds and pattern. `reference` names a `$ref`'d schema (a link
/// to its section).
pub fn type_text(schema: &Value, reference: &dyn Fn(&str) -> String) -> String {
    if let Some(target) = schema["$ref"].as_str() {
        return reference(target);
    }
    if let Some(values) = schema["enum"].as_array() {
        return one_of(values.iter().map(|value| format!("`{}`", value_text(value))).collect());
    }
    if let Some(value) = schema.get("const") {
        return format!("`{}`", value_text(value));
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(options) = schema[key].as_array() {
            return one_of(options.iter().map(|option| type_text(option, reference)).collect());
        }
    }
    let mut text = match &schema["type"] {
        Value::String(name) => name_of(name, schema, reference),
        Value::Array(names) => {
            one_of(names.iter().filter_map(Value::as_str).map(|name| name_of(name, schema, reference)).collect())
        }
        _ => "any JSON".to_owned(),
    };
    // `uint32` and the like are Rust's sizes, not the reader's concern: a minimum of 0 says it.
    let unsigned = schema["format"].as_str().is_some_and(|format| format.starts_with("uint"));
    if let Some(format) = schema["format"].as_str().filter(|_| !unsigned) {
        text.push_str(&format!(" ({format})"));
    }
    let bound = |key: &str| schema[key].as_u64().or_else(|| schema[key].as_f64().map(|f| f as u64));
    match (bound("minLength"), bound("maxLength")) {
        (Some(min), Some(max)) => text.push_str(&format!(", {min} to {max} characters")),
        (None, Some(max)) => text.push_str(&format!(", at most {max} characters")),
        (Some(min), None) => text.push_str(&format!(", at least {min} character{}", if min == 1 { "" } else { "s" })),
        (None, None) => {}
    }
    match (bound("minimum"), bound("maximum")) {
        (Some(min), Some(max)) => text.push_str(&format!(", {min} to {max}")),
        (None, Some(max)) => text.push_str(&format!(", at most {max}")),
        (Some(min), None) => text.push_str(&format!(", at least {min}")),
        (None, None) => {}
    }
    match (bound("minItems"), bound("maxItems")) {
        (Some(min), Some(max)) => text.push_str(&format!(", {min} to {max} items")),
        (Some(min), None) => text.push_str(&format!(", at least {min} item{}", if min == 1 { "" } else { "s" })),
        _ => {}
    }
    if let Some(pattern) = schema["pattern"].as_str() {
        text.push_str(&format!(", matching `{pattern}`"));
    }
    text
}

fn name_of(name: &str, schema: &Value, reference: &dyn Fn(&str) -> String) -> String {
    match name {
        "array" if schema.get("items").is_some_and(|items| items != &Value::Object(Default::default())) => {
            format!("array of {}", type_text(&schema["items"], reference))
        }
        name => name.to_owned(),
    }
}

fn one_of(mut names: Vec<String>) -> String {
    match names.len() {
        0 => "any JSON".to_owned(),
        1 => names.remove(0),
        _ => {
            let last = names.pop().unwrap();
            format!("{} or {last}", names.join(", "))
        }
    }
}

/// A JSON value as it is written in the file or on the wire (a string without its quotes).
pub fn value_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_stale_page_names_its_section_and_row() {
        let old = "# P\n\n## `GET /a`\n\n| Field | Type |\n|---|---|\n| `x` | string |\n| `y` | integer |\n";
        let new =
            "# P\n\n## `GET /a`\n\n| Field | Type |\n|---|---|\n| `x` | integer |\n| `z` | string |\n\n## `GET /b`\n";
        assert_eq!(
            differences(old, new),
            [
                "section `GET /a`: row `x` changed, row `z` is not on the page, row `y` is on the page, but not in the code",
                "section `GET /b`: not on the page"
            ]
        );
        assert_eq!(differences(new, old)[1], "section `GET /b`: on the page, but not in the code");
    }

    #[test]
    fn types_read_as_words() {
        let none = |_: &str| String::new();
        assert_eq!(
            type_text(&json!({"type": ["integer", "null"], "minimum": 0}), &none),
            "integer or null, at least 0"
        );
        assert_eq!(type_text(&json!({"type": "string", "enum": ["a", "b", "c"]}), &none), "`a`, `b` or `c`");
        assert_eq!(
            type_text(&json!({"type": "array", "items": {"$ref": "#/x"}}), &|r| format!("[{r}]")),
            "array of [#/x]"
        );
        assert_eq!(cell("a | b <c> `<d>`"), "a \\| b &lt;c&gt; `<d>`");
        assert_eq!(heading_id("`POST /v1/questions/{id}/answer`"), "post-v1questionsidanswer");
    }
}
