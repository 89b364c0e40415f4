//! Agents' JSON configuration files, read whole and written atomically: a temporary file and a
//! rename, keeping the file's mode (a new one readable by its owner only), so a crash never
//! leaves half a file, and a file that is not JSON is left as it is. A changed value is written
//! over the file's own text, keeping all of it that did not change ([`crate::json_text`]), so
//! taking Beckon's entries out gives back the bytes that were there; a file left holding
//! nothing (`{}`) is deleted, as setup made it.

use std::io::Write;
use std::path::Path;

use serde_json::{Map, Value, json};

use crate::{Error, Result};

/// The file's value; `None` when there is no file, `{}` when it is empty.
pub fn read_json(path: &Path) -> Result<Option<Value>> {
    match read_text(path)? {
        Some(text) if text.trim().is_empty() => Ok(Some(json!({}))),
        Some(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|err| Error::NotJson { path: path.display().to_string(), detail: err.to_string() }),
        None => Ok(None),
    }
}

/// The file's text; `None` when there is no file.
pub fn read_text(path: &Path) -> Result<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(Error::Io { action: "cannot read", path: path.display().to_string(), detail: err.to_string() }),
    }
}

/// Writes `value` to `path` over the file's own text (see [`crate::json_text`]); a file that
/// `value` leaves holding nothing (`{}`) is deleted instead.
pub fn write_json(path: &Path, value: &Value) -> Result<()> {
    let text = read_text(path)?;
    if value.as_object().is_some_and(Map::is_empty) {
        return match text {
            Some(_) => std::fs::remove_file(path).map_err(|err| Error::Io {
                action: "cannot delete",
                path: path.display().to_string(),
                detail: err.to_string(),
            }),
            None => Ok(()),
        };
    }
    let rendered = match text {
        Some(text) => crate::json_text::render(&text, value),
        None => crate::json_text::fresh_file(value),
    };
    write_text(path, &rendered)
}

/// Writes `text` to `path` through a temporary file and a rename, creating its folder.
pub fn write_text(path: &Path, text: &str) -> Result<()> {
    let fail = |err: std::io::Error| Error::Io {
        action: "cannot write",
        path: path.display().to_string(),
        detail: err.to_string(),
    };
    let folder = path.parent().ok_or_else(|| Error::Place(format!("{} has no folder", path.display())))?;
    std::fs::create_dir_all(folder).map_err(fail)?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("settings");
    let temporary = folder.join(format!(".{name}.beckon-{}", std::process::id()));
    let written = (|| {
        let mut file = std::fs::File::create(&temporary)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(path).map(|m| m.permissions().mode() & 0o777).unwrap_or(0o600);
            file.set_permissions(std::fs::Permissions::from_mode(mode))?;
        }
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&temporary, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written.map_err(fail)
}

/// One JSON file's edit: read (`{}` when missing), change, and (unless a dry run) write when
/// `change` says it changed anything, as [`write_json`] does.
pub fn edit(path: &Path, dry_run: bool, change: impl FnOnce(&mut Value) -> bool) -> Result<bool> {
    let mut value = read_json(path)?.unwrap_or_else(|| json!({}));
    if !change(&mut value) {
        return Ok(false);
    }
    if !dry_run {
        write_json(path, &value)?;
    }
    Ok(true)
}

/// `value` as an object, made one if it is not (a settings file that is `null` or empty).
pub fn object(value: &mut Value) -> &mut Map<String, Value> {
    if !value.is_object() {
        *value = json!({});
    }
    match value {
        Value::Object(map) => map,
        // Made an object just above.
        _ => unreachable!("an object was just put here"),
    }
}

/// `value` as an array, made one if it is not.
pub fn array(value: &mut Value) -> &mut Vec<Value> {
    if !value.is_array() {
        *value = json!([]);
    }
    match value {
        Value::Array(list) => list,
        // Made an array just above.
        _ => unreachable!("an array was just put here"),
    }
}

/// Removes `key` from `map` when it holds an empty object or array, keeping the others' order.
pub fn drop_if_empty(map: &mut Map<String, Value>, key: &str) {
    let empty = match map.get(key) {
        Some(Value::Object(inner)) => inner.is_empty(),
        Some(Value::Array(inner)) => inner.is_empty(),
        _ => false,
    };
    if empty {
        map.shift_remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_writes_only_what_changed_and_keeps_the_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("deep/settings.json");
        assert!(!edit(&path, false, |_| false).unwrap());
        assert!(!path.exists(), "nothing changed, nothing written");
        assert!(
            edit(&path, true, |v| {
                v["a"] = json!(1);
                true
            })
            .unwrap()
        );
        assert!(!path.exists(), "a dry run writes nothing");
        edit(&path, false, |v| {
            v["a"] = json!(1);
            true
        })
        .unwrap();
        assert_eq!(read_json(&path).unwrap(), Some(json!({"a": 1})));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
        std::fs::write(&path, "{not json").unwrap();
        assert!(matches!(edit(&path, false, |_| true), Err(Error::NotJson { .. })));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{not json", "a broken file is left alone");
    }

    #[test]
    fn an_edit_keeps_the_files_text_and_a_file_left_empty_is_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        let theirs = "{\n    \"banner\": \"never\",\n    \"trustedFolders\": [\"/home/ada/shop\"]\n}";
        std::fs::write(&path, theirs).unwrap();
        edit(&path, false, |v| {
            v["hooks"] = json!({"sessionEnd": []});
            true
        })
        .unwrap();
        let written = std::fs::read_to_string(&path).unwrap();
        assert!(
            written.starts_with(
                "{\n    \"banner\": \"never\",\n    \"trustedFolders\": [\"/home/ada/shop\"],\n    \"hooks\""
            ),
            "{written}"
        );
        edit(&path, false, |v| object(v).shift_remove("hooks").is_some()).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), theirs);

        let made = dir.path().join("made.json");
        edit(&made, false, |v| {
            v["hooks"] = json!({});
            true
        })
        .unwrap();
        assert!(made.exists());
        edit(&made, false, |v| object(v).shift_remove("hooks").is_some()).unwrap();
        assert!(!made.exists(), "a file left holding nothing goes");
    }
}
