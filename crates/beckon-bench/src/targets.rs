//! The figures Beckon promises, checked against a run.

/// One promise and whether the run kept it.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    /// What is promised.
    pub promise: String,
    /// What was measured.
    pub measured: String,
    /// Kept (`None`: not measured in this run).
    pub kept: Option<bool>,
}

impl Check {
    /// A check of `measured` (a number shown as `shown`) against `kept`.
    pub fn new(promise: impl Into<String>, shown: impl Into<String>, kept: Option<bool>) -> Check {
        Check { promise: promise.into(), measured: shown.into(), kept }
    }

    /// "kept", "MISSED" or "not run".
    pub fn verdict(&self) -> &'static str {
        match self.kept {
            Some(true) => "kept",
            Some(false) => "MISSED",
            None => "not run",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts() {
        assert_eq!(Check::new("a", "1", Some(true)).verdict(), "kept");
        assert_eq!(Check::new("a", "1", Some(false)).verdict(), "MISSED");
        assert_eq!(Check::new("a", "-", None).verdict(), "not run");
    }
}
