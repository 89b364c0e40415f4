//! Reading JSON bodies: malformed JSON is a 400 naming the problem; a body that parses but
//! breaks the rules is a 422 listing every problem with its field.

use beckon_core::Problems;
use serde_json::{Map, Value};

use crate::error::{ApiError, ApiResult};

/// Parses a JSON object body (an empty body reads as `{}`).
pub fn object(bytes: &[u8]) -> ApiResult<Map<String, Value>> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Map::new());
    }
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(ApiError::bad_request("the body must be a JSON object")),
        Err(err) => Err(ApiError::bad_request(format!("the body is not valid JSON: {err}"))),
    }
}

/// Fields of a body, checked one by one with problems collected.
pub struct Fields {
    map: Map<String, Value>,
    pub problems: Problems,
}

impl Fields {
    /// Checks that only `allowed` fields are present.
    pub fn new(map: Map<String, Value>, allowed: &[&str]) -> Fields {
        let mut problems = Problems::new();
        for key in map.keys() {
            if !allowed.contains(&key.as_str()) {
                problems.push(key.as_str(), format!("unknown field; allowed: {}", allowed.join(", ")));
            }
        }
        Fields { map, problems }
    }

    /// A field's value (null counts as absent).
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    /// A string field.
    pub fn string(&mut self, key: &str) -> Option<String> {
        match self.get(key)? {
            Value::String(text) => Some(text.clone()),
            _ => {
                self.problems.push(key, "must be a string");
                None
            }
        }
    }

    /// A required string field.
    pub fn required_string(&mut self, key: &str) -> Option<String> {
        if self.get(key).is_none() {
            self.problems.push(key, "is required");
            return None;
        }
        self.string(key)
    }

    /// Fails with every problem found, if any.
    pub fn finish(self) -> ApiResult<()> {
        if self.problems.is_empty() { Ok(()) } else { Err(ApiError::invalid(self.problems)) }
    }
}

/// Reads a duration: seconds as a number, or text such as `90s`, `15m`, `2h`, `7d`.
pub fn duration(value: &Value) -> Result<std::time::Duration, String> {
    match value {
        Value::Number(n) => match n.as_f64().filter(|s| s.is_finite() && *s > 0.0) {
            // `from_secs_f64` panics past about 584 billion years; such a number is refused.
            Some(seconds) => {
                std::time::Duration::try_from_secs_f64(seconds).map_err(|_| "is too long a duration".to_owned())
            }
            None => Err("must be a positive number of seconds".to_owned()),
        },
        Value::String(text) => beckon_core::agent::parse_duration_ms(text).map(std::time::Duration::from_millis),
        _ => Err("must be seconds or a duration such as \"2h\"".into()),
    }
}
