//! Reading and writing column values, with typed errors for anything a damaged file holds.

use std::str::FromStr;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use crate::error::{Error, Result};

/// Largest JSON document stored in one column (a message, a payload, an event).
pub const JSON_MAX_BYTES: usize = 1024 * 1024;
/// Largest conversation state stored for one session.
pub const STATE_MAX_BYTES: usize = 8 * 1024 * 1024;

/// Serialises `value` as JSON text within `limit` bytes.
pub(crate) fn to_json<T: Serialize + ?Sized>(what: &'static str, value: &T, limit: usize) -> Result<String> {
    let text = serde_json::to_string(value).map_err(|err| Error::InvalidData {
        table: what,
        column: "json",
        detail: err.to_string(),
    })?;
    if text.len() > limit {
        return Err(Error::TooLarge { what, size: text.len(), limit });
    }
    Ok(text)
}

/// Serialises `value` as raw JSON within `limit` bytes, to embed in other documents without
/// serialising it again.
pub(crate) fn to_raw<T: Serialize + ?Sized>(what: &'static str, value: &T, limit: usize) -> Result<Box<RawValue>> {
    let text = to_json(what, value, limit)?;
    RawValue::from_string(text).map_err(|err| Error::InvalidData {
        table: what,
        column: "json",
        detail: err.to_string(),
    })
}

/// Reads JSON text stored in `table.column` as raw JSON, checking only that it is JSON.
pub(crate) fn raw_from_json(table: &'static str, column: &'static str, text: String) -> Result<Box<RawValue>> {
    RawValue::from_string(text).map_err(|err| Error::InvalidData { table, column, detail: err.to_string() })
}

/// Reads JSON text stored in `table.column`.
pub(crate) fn from_json<T: DeserializeOwned>(table: &'static str, column: &'static str, text: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|err| Error::InvalidData { table, column, detail: err.to_string() })
}

/// Reads a value stored as text with a `FromStr` (ids).
pub(crate) fn parse<T: FromStr>(table: &'static str, column: &'static str, text: &str) -> Result<T>
where
    T::Err: std::fmt::Display,
{
    text.parse().map_err(|err: T::Err| Error::InvalidData { table, column, detail: err.to_string() })
}

/// Reads a name stored as text through `read`, naming the value when it is unknown.
pub(crate) fn name<T>(table: &'static str, column: &'static str, text: &str, read: fn(&str) -> Option<T>) -> Result<T> {
    read(text).ok_or_else(|| Error::InvalidData {
        table,
        column,
        detail: format!("unknown value {:?}", text.chars().take(40).collect::<String>()),
    })
}
