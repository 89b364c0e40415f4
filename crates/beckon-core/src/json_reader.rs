//! Reading JSON objects field by field, recording a path-naming problem for every mismatch
//! instead of stopping at the first, so an agent learns everything wrong in one reply.

use serde_json::{Map, Value};

use crate::problem::{Problems, join};

/// The JSON type of `value` as messages name it ("a string", "null").
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// An object's fields, with unknown ones already reported.
pub(crate) struct Fields<'a> {
    map: &'a Map<String, Value>,
    path: String,
}

/// Opens `value` as an object whose fields must all be in `allowed`.
pub(crate) fn object<'a>(
    value: &'a Value,
    path: &str,
    allowed: &[&str],
    problems: &mut Problems,
) -> Option<Fields<'a>> {
    object_of(value, path, allowed, "field", problems)
}

/// Like [`object`], calling its members `noun` ("keyword" for a schema) in messages.
pub(crate) fn object_of<'a>(
    value: &'a Value,
    path: &str,
    allowed: &[&str],
    noun: &str,
    problems: &mut Problems,
) -> Option<Fields<'a>> {
    let Value::Object(map) = value else {
        problems.push(path, format!("must be an object, not {}", type_name(value)));
        return None;
    };
    for key in map.keys() {
        if !allowed.contains(&key.as_str()) {
            problems.push(join(path, key), format!("unknown {noun}; remove it (allowed here: {})", allowed.join(", ")));
        }
    }
    Some(Fields { map, path: path.to_owned() })
}

impl<'a> Fields<'a> {
    /// The path of one of this object's fields.
    pub(crate) fn path(&self, key: &str) -> String {
        join(&self.path, key)
    }

    /// Whether a field is present (and not null).
    pub(crate) fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// A field's value; JSON `null` counts as absent.
    pub(crate) fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    fn typed<T>(
        &self,
        key: &str,
        expected: &str,
        problems: &mut Problems,
        read: impl Fn(&'a Value) -> Option<T>,
    ) -> Option<T> {
        let value = self.get(key)?;
        let read = read(value);
        if read.is_none() {
            problems.push(self.path(key), format!("must be {expected}, not {}", type_name(value)));
        }
        read
    }

    /// Reports a missing required field.
    pub(crate) fn require(&self, key: &str, problems: &mut Problems) -> bool {
        let present = self.has(key);
        if !present {
            problems.push(self.path(key), "is required");
        }
        present
    }

    pub(crate) fn string(&self, key: &str, problems: &mut Problems) -> Option<&'a str> {
        self.typed(key, "a string", problems, Value::as_str)
    }

    pub(crate) fn required_string(&self, key: &str, problems: &mut Problems) -> Option<&'a str> {
        if self.require(key, problems) { self.string(key, problems) } else { None }
    }

    pub(crate) fn bool(&self, key: &str, problems: &mut Problems) -> Option<bool> {
        self.typed(key, "true or false", problems, Value::as_bool)
    }

    pub(crate) fn array(&self, key: &str, problems: &mut Problems) -> Option<&'a Vec<Value>> {
        self.typed(key, "an array", problems, Value::as_array)
    }

    pub(crate) fn number(&self, key: &str, problems: &mut Problems) -> Option<f64> {
        self.typed(key, "a number", problems, Value::as_f64)
    }

    pub(crate) fn count(&self, key: &str, problems: &mut Problems) -> Option<u64> {
        let value = self.get(key)?;
        let count = value.as_u64();
        if count.is_none() {
            let got = match value {
                Value::Number(n) => format!("it is {n}"),
                other => format!("not {}", type_name(other)),
            };
            problems.push(self.path(key), format!("must be a whole number of zero or more ({got})"));
        }
        count
    }
}
