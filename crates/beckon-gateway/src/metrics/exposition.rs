//! Prometheus's text exposition format (version 0.0.4), written by hand: each family is a
//! `# HELP` line, a `# TYPE` line and its samples, one per line, label values escaped. Small
//! enough that a dependency would be more to keep than this.

use std::fmt::Write as _;

/// The `Content-Type` a scrape is answered with.
pub(crate) const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// What a family's samples mean to Prometheus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Only goes up (and back to zero when the process starts again); its name ends in `_total`.
    Counter,
    /// Goes up and down.
    Gauge,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Kind::Counter => "counter",
            Kind::Gauge => "gauge",
        }
    }
}

/// A sample's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Value {
    /// A count, written exactly.
    Whole(u64),
    /// A measure (seconds, a timestamp).
    Real(f64),
}

impl From<u64> for Value {
    fn from(n: u64) -> Value {
        Value::Whole(n)
    }
}

impl From<usize> for Value {
    fn from(n: usize) -> Value {
        Value::Whole(n as u64)
    }
}

impl From<bool> for Value {
    fn from(yes: bool) -> Value {
        Value::Whole(u64::from(yes))
    }
}

impl From<f64> for Value {
    fn from(x: f64) -> Value {
        Value::Real(x)
    }
}

/// The text of one scrape, family by family.
#[derive(Debug, Default)]
pub(crate) struct Exposition {
    text: String,
}

impl Exposition {
    /// A family with one sample and no labels.
    pub(crate) fn single(&mut self, name: &str, kind: Kind, help: &str, value: impl Into<Value>) {
        self.family(name, kind, help, [(&[][..], value.into())]);
    }

    /// A family and its samples, each with its labels (`name`, `value`).
    pub(crate) fn family<'a>(
        &mut self,
        name: &str,
        kind: Kind,
        help: &str,
        samples: impl IntoIterator<Item = (&'a [(&'a str, &'a str)], Value)>,
    ) {
        // Writing to a String cannot fail.
        let _ = writeln!(self.text, "# HELP {name} {}", escape_help(help));
        let _ = writeln!(self.text, "# TYPE {name} {}", kind.as_str());
        for (labels, value) in samples {
            self.text.push_str(name);
            if !labels.is_empty() {
                self.text.push('{');
                for (i, (label, value)) in labels.iter().enumerate() {
                    if i > 0 {
                        self.text.push(',');
                    }
                    let _ = write!(self.text, "{label}=\"{}\"", escape_label(value));
                }
                self.text.push('}');
            }
            self.text.push(' ');
            write_value(&mut self.text, value);
            self.text.push('\n');
        }
    }

    /// The text to serve.
    pub(crate) fn finish(self) -> String {
        self.text
    }
}

fn write_value(text: &mut String, value: Value) {
    match value {
        Value::Whole(n) => {
            let _ = write!(text, "{n}");
        }
        Value::Real(x) if x.is_nan() => text.push_str("NaN"),
        Value::Real(x) if x == f64::INFINITY => text.push_str("+Inf"),
        Value::Real(x) if x == f64::NEG_INFINITY => text.push_str("-Inf"),
        Value::Real(x) => {
            let _ = write!(text, "{x}");
        }
    }
}

/// A `# HELP` text: backslashes and line breaks escaped.
fn escape_help(text: &str) -> String {
    text.replace('\\', "\\\\").replace('\n', "\\n")
}

/// A label value: backslashes, double quotes and line breaks escaped.
fn escape_label(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_family_is_its_help_its_type_and_its_samples() {
        let mut out = Exposition::default();
        out.single("beckon_questions_pending", Kind::Gauge, "Questions waiting.", 3u64);
        out.family(
            "beckon_http_responses_total",
            Kind::Counter,
            "Responses, by class.",
            [(&[("class", "2xx")][..], Value::Whole(7)), (&[("class", "4xx")][..], Value::Whole(0))],
        );
        assert_eq!(
            out.finish(),
            "# HELP beckon_questions_pending Questions waiting.\n\
             # TYPE beckon_questions_pending gauge\n\
             beckon_questions_pending 3\n\
             # HELP beckon_http_responses_total Responses, by class.\n\
             # TYPE beckon_http_responses_total counter\n\
             beckon_http_responses_total{class=\"2xx\"} 7\n\
             beckon_http_responses_total{class=\"4xx\"} 0\n"
        );
    }

    #[test]
    fn several_labels_are_joined_and_values_escaped() {
        let mut out = Exposition::default();
        out.family(
            "beckon_build_info",
            Kind::Gauge,
            "A help text with a \\ and a\nsecond line.",
            [(&[("version", "1.2.3"), ("note", "say \"hi\"\\\nbye")][..], Value::Whole(1))],
        );
        assert_eq!(
            out.finish(),
            "# HELP beckon_build_info A help text with a \\\\ and a\\nsecond line.\n\
             # TYPE beckon_build_info gauge\n\
             beckon_build_info{version=\"1.2.3\",note=\"say \\\"hi\\\"\\\\\\nbye\"} 1\n"
        );
    }

    #[test]
    fn measures_are_written_as_prometheus_reads_them() {
        let line = |value: Value| {
            let mut out = Exposition::default();
            out.single("m", Kind::Gauge, "h", value);
            out.finish().lines().nth(2).unwrap_or_default().to_owned()
        };
        assert_eq!(line(Value::Real(12.5)), "m 12.5");
        assert_eq!(line(Value::Real(0.0)), "m 0");
        assert_eq!(line(Value::Real(1_700_000_000.25)), "m 1700000000.25");
        assert_eq!(line(Value::Real(f64::NAN)), "m NaN");
        assert_eq!(line(Value::Real(f64::INFINITY)), "m +Inf");
        assert_eq!(line(Value::Real(f64::NEG_INFINITY)), "m -Inf");
        assert_eq!(line(Value::Whole(u64::MAX)), "m 18446744073709551615");
        assert_eq!(line(true.into()), "m 1");
    }
}
