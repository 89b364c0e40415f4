//! Validation problems that name the JSON path they are about.
//!
//! An agent gets these back as a tool error, so each message says what is wrong and how to
//! fix it, and all of them come at once: one round trip fixes everything.

use std::fmt;

use serde::{Deserialize, Serialize};

/// One thing wrong with an input, at a JSON path such as `questions[1].options[0].label`.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    /// Where the problem is; empty for the input as a whole.
    pub path: String,
    /// What is wrong and what to do about it.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() { f.write_str(&self.message) } else { write!(f, "{}: {}", self.path, self.message) }
    }
}

/// Every problem found in one input, in the order they were found.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Problems(Vec<Problem>);

impl Problems {
    /// No problems yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// A single problem.
    pub fn one(path: impl Into<String>, message: impl Into<String>) -> Self {
        let mut problems = Self::new();
        problems.push(path, message);
        problems
    }

    /// Records a problem at `path`.
    pub fn push(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.0.push(Problem { path: path.into(), message: message.into() });
    }

    /// Records every problem of `other`, after these.
    pub fn extend(&mut self, other: Problems) {
        self.0.extend(other.0);
    }

    /// True when nothing was found.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many problems were found.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The problems, in the order they were found.
    pub fn iter(&self) -> std::slice::Iter<'_, Problem> {
        self.0.iter()
    }

    /// The first problem's path, for front ends that highlight one field.
    pub fn first_path(&self) -> Option<&str> {
        self.0.first().map(|p| p.path.as_str())
    }

    /// `Ok(value)` when nothing was found, else these problems.
    pub fn into_result<T>(self, value: T) -> Result<T, Problems> {
        if self.is_empty() { Ok(value) } else { Err(self) }
    }
}

impl fmt::Display for Problems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, problem) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{problem}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Problems {}

impl<'a> IntoIterator for &'a Problems {
    type Item = &'a Problem;
    type IntoIter = std::slice::Iter<'a, Problem>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// Joins a field name onto a JSON path: `join("questions[0]", "label")`.
pub(crate) fn join(path: &str, field: &str) -> String {
    if path.is_empty() { field.to_owned() } else { format!("{path}.{field}") }
}

/// Appends an array index to a JSON path: `index("questions", 2)`.
pub(crate) fn index(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_lists_every_problem_with_its_path() {
        let mut problems = Problems::new();
        problems.push("questions[1].options[0].label", "must not be empty");
        problems.push("", "the request is 40000 bytes; the limit is 32768");
        assert_eq!(
            problems.to_string(),
            "questions[1].options[0].label: must not be empty\nthe request is 40000 bytes; the limit is 32768"
        );
        assert_eq!(problems.len(), 2);
        assert_eq!(problems.first_path(), Some("questions[1].options[0].label"));
    }

    #[test]
    fn paths_join_fields_and_indexes() {
        assert_eq!(join("", "questions"), "questions");
        assert_eq!(join(&index("questions", 3), "header"), "questions[3].header");
    }

    #[test]
    fn into_result_is_ok_only_without_problems() {
        assert_eq!(Problems::new().into_result(5), Ok(5));
        assert!(Problems::one("x", "bad").into_result(5).is_err());
    }
}
