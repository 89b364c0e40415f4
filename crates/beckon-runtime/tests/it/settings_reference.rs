//! docs/src/reference/settings.md is settings.json as its types say: every key with its type,
//! default and meaning, read from `SettingsFile`'s JSON Schema (schemars: the doc comments
//! are the descriptions, `Default` the defaults), so a key added without its page fails here,
//! naming the key. `BECKON_UPDATE_DOCS=1` rewrites the page instead.

use std::path::Path;

use beckon_runtime::settings::SettingsFile;
use beckon_testkit::reference_page::{cell, check, heading_id, type_text, value_text};
use serde_json::Value;

const PAGE: &str = "docs/src/reference/settings.md";
const REWRITE: &str = "BECKON_UPDATE_DOCS=1 cargo nextest run -p beckon-runtime -E 'test(/^settings_reference::/)'";

#[test]
fn the_settings_page_is_every_key_of_settings_json() {
    let schema = serde_json::to_value(schemars::schema_for!(SettingsFile)).unwrap();
    let page = page(&schema);
    assert!(page.contains("| `gateway_port` |"), "{page}");
    check(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")), PAGE, &page, REWRITE);
}

fn page(schema: &Value) -> String {
    let defs = &schema["$defs"];
    let mut out = format!(
        "# Settings (`settings.json`)\n\n\
         This page is written from the types `settings.json` is read into, their doc comments and \
         defaults, by `{REWRITE}`; a test fails when it differs from them. Where the file is, and \
         which [environment variables](environment.md) override it, is in \
         [Configuration](configuration.md). A key left out of the file has its default; a key the \
         file should not have makes it unreadable, and Beckon then starts on the defaults and says \
         so.\n"
    );
    // The object types the file holds, in the order the file first names them, each with the
    // keys that hold it.
    let mut objects: Vec<(String, Vec<String>)> = Vec::new();
    for (key, property) in properties(schema) {
        if let Some(name) = def_name(property).filter(|name| defs[name.as_str()]["type"] == "object") {
            match objects.iter_mut().find(|(object, _)| *object == name) {
                Some((_, keys)) => keys.push(key.clone()),
                None => objects.push((name, vec![key.clone()])),
            }
        }
    }
    let title = |keys: &[String]| keys.iter().map(|key| format!("`{key}`")).collect::<Vec<_>>().join(" and ");
    let reference = |target: &str| {
        let name = target.trim_start_matches("#/$defs/");
        match objects.iter().find(|(object, _)| object == name) {
            Some((_, keys)) => format!("object ([below](#{}))", heading_id(&title(keys))),
            // An enum's values, listed so that "or null" can follow them.
            None => match defs[name]["oneOf"].as_array() {
                Some(values) => values
                    .iter()
                    .map(|value| format!("`{}`", value_text(&value["const"])))
                    .collect::<Vec<_>>()
                    .join(", "),
                None => type_text(&defs[name], &|_| "any JSON".to_owned()),
            },
        }
    };
    out.push_str("\n## The file\n\n");
    out.push_str(&table(schema, defs, &reference));
    for (name, keys) in &objects {
        let def = &defs[name.as_str()];
        out.push_str(&format!("\n## {}\n\n", title(keys)));
        if let Some(description) = def["description"].as_str() {
            out.push_str(&format!("{}\n\n", description.replace('\n', " ")));
        }
        out.push_str(&table(def, defs, &reference));
    }
    out
}

/// An object's keys as a table: key, type, default, meaning.
fn table(object: &Value, defs: &Value, reference: &dyn Fn(&str) -> String) -> String {
    let mut out = "| Key | Type | Default | Meaning |\n|---|---|---|---|\n".to_owned();
    for (key, property) in properties(object) {
        let default = match &property["default"] {
            Value::Null => "unset".to_owned(),
            Value::Object(_) => "each key's own".to_owned(),
            value => format!("`{}`", value_text(value)),
        };
        let mut meaning = property["description"].as_str().unwrap_or_default().to_owned();
        // An enum's values say what each means.
        if let Some(values) = def_name(property).and_then(|name| defs[name.as_str()]["oneOf"].as_array().cloned()) {
            for value in values {
                if let (Some(constant), Some(description)) = (value.get("const"), value["description"].as_str()) {
                    meaning.push_str(&format!(" `{}`: {description}", value_text(constant)));
                }
            }
        }
        out.push_str(&format!(
            "| `{key}` | {} | {default} | {} |\n",
            cell(&type_text(property, reference)),
            cell(&meaning)
        ));
    }
    out
}

fn properties(object: &Value) -> Vec<(&String, &Value)> {
    object["properties"].as_object().map(|properties| properties.iter().collect()).unwrap_or_default()
}

/// The `$defs` name a property refers to, directly or beside `null`.
fn def_name(property: &Value) -> Option<String> {
    let target = property["$ref"].as_str().map(str::to_owned).or_else(|| {
        property["anyOf"].as_array()?.iter().find_map(|option| option["$ref"].as_str().map(str::to_owned))
    })?;
    Some(target.trim_start_matches("#/$defs/").to_owned())
}
