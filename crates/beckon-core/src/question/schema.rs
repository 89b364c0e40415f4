//! The JSON-Schema subset a free-form question may use: one primitive field, as MCP
//! elicitation's `requestedSchema` allows for each of its properties.

use serde_json::{Map, Value, json};

use crate::json_reader::{Fields, object_of, type_name};
use crate::limits::{DESCRIPTION_MAX_BYTES, ENUM_MAX_VALUES, FREE_TEXT_MAX_BYTES, LABEL_MAX_BYTES, PATTERN_MAX_BYTES};
use crate::problem::{Problems, index, join};
use crate::question::format::StringFormat;
use crate::text::{self, Lines};

/// The schema of one free-form answer field.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldSchema {
    /// A short title for the field.
    pub title: Option<String>,
    /// Help text shown under the field.
    pub description: Option<String>,
    /// The value the form starts with; always valid against the schema.
    pub default: Option<Value>,
    /// The type and its constraints.
    pub kind: FieldKind,
}

/// The type of a free-form field and its constraints.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldKind {
    /// `{"type":"string"}` with optional length, pattern and format.
    String {
        /// Fewest characters.
        min_length: Option<u64>,
        /// Most characters.
        max_length: Option<u64>,
        /// A regular expression the text must contain a match of (unanchored, as in JSON Schema).
        pattern: Option<String>,
        /// A format the text must be in.
        format: Option<StringFormat>,
    },
    /// `{"type":"number"}` or `{"type":"integer"}` with an optional inclusive range.
    Number {
        /// Whether only whole numbers are accepted.
        integer: bool,
        /// Smallest allowed value.
        minimum: Option<f64>,
        /// Largest allowed value.
        maximum: Option<f64>,
    },
    /// `{"type":"boolean"}`.
    Boolean,
    /// `{"type":"string","enum":[...]}`, with display titles from `enumNames` or `oneOf`.
    Enum {
        /// The values the answer must be one of.
        values: Vec<String>,
        /// A display title per value, same order.
        titles: Option<Vec<String>>,
    },
}

const COMMON: [&str; 4] = ["type", "title", "description", "default"];
const STRING_KEYWORDS: [&str; 8] =
    ["type", "title", "description", "default", "minLength", "maxLength", "pattern", "format"];
const ENUM_KEYWORDS: [&str; 7] = ["type", "title", "description", "default", "enum", "enumNames", "oneOf"];
const NUMBER_KEYWORDS: [&str; 6] = ["type", "title", "description", "default", "minimum", "maximum"];

impl FieldSchema {
    /// Reads and checks a schema, recording every problem under `path`.
    pub(crate) fn parse(value: &Value, path: &str, problems: &mut Problems) -> Option<FieldSchema> {
        let Value::Object(map) = value else {
            problems
                .push(path, format!("must be an object such as {{\"type\": \"string\"}}, not {}", type_name(value)));
            return None;
        };
        let type_path = join(path, "type");
        let kind_name = match map.get("type") {
            None | Some(Value::Null) => {
                problems.push(type_path, "is required: one of \"string\", \"number\", \"integer\", \"boolean\"");
                return None;
            }
            Some(Value::String(name)) => name.as_str(),
            Some(other) => {
                problems.push(type_path, format!("must be a string, not {}", type_name(other)));
                return None;
            }
        };
        let is_enum = map.contains_key("enum") || map.contains_key("oneOf");
        let allowed: &[&str] = match kind_name {
            "string" if is_enum => &ENUM_KEYWORDS,
            "string" => &STRING_KEYWORDS,
            "number" | "integer" => &NUMBER_KEYWORDS,
            "boolean" => &COMMON,
            other => {
                problems.push(
                    type_path,
                    format!(
                        "{} is not supported; use \"string\", \"number\", \"integer\" or \"boolean\" (objects and arrays are not)",
                        text::quote(other, 40)
                    ),
                );
                return None;
            }
        };
        let fields = object_of(value, path, allowed, "keyword", problems)?;
        let before = problems.len();
        let title = fields.string("title", problems);
        if let Some(title) = title {
            text::check(&fields.path("title"), title, Lines::Single, DESCRIPTION_MAX_BYTES, problems);
        }
        let description = fields.string("description", problems);
        if let Some(description) = description {
            text::check(&fields.path("description"), description, Lines::Multi, DESCRIPTION_MAX_BYTES, problems);
        }
        let kind = match kind_name {
            "string" if is_enum => parse_enum(&fields, problems),
            "string" => parse_string(&fields, problems),
            "number" => parse_number(&fields, false, problems),
            "integer" => parse_number(&fields, true, problems),
            _ => Some(FieldKind::Boolean),
        }?;
        let mut schema = FieldSchema {
            title: title.map(str::to_owned),
            description: description.map(str::to_owned),
            default: None,
            kind,
        };
        if problems.len() > before {
            return None;
        }
        if let Some(default) = fields.get("default") {
            schema.check_value(default, &fields.path("default"), problems);
            schema.default = Some(default.clone());
        }
        (problems.len() == before).then_some(schema)
    }

    /// The schema as JSON, in the shape it was given (enums as `enum` + `enumNames`).
    pub fn to_value(&self) -> Value {
        let mut map = Map::new();
        let mut put = |key: &str, value: Value| {
            map.insert(key.to_owned(), value);
        };
        match &self.kind {
            FieldKind::String { min_length, max_length, pattern, format } => {
                put("type", json!("string"));
                if let Some(n) = min_length {
                    put("minLength", json!(n));
                }
                if let Some(n) = max_length {
                    put("maxLength", json!(n));
                }
                if let Some(p) = pattern {
                    put("pattern", json!(p));
                }
                if let Some(f) = format {
                    put("format", json!(f.as_str()));
                }
            }
            FieldKind::Number { integer, minimum, maximum } => {
                put("type", json!(if *integer { "integer" } else { "number" }));
                if let Some(n) = minimum {
                    put("minimum", number(*n, *integer));
                }
                if let Some(n) = maximum {
                    put("maximum", number(*n, *integer));
                }
            }
            FieldKind::Boolean => put("type", json!("boolean")),
            FieldKind::Enum { values, titles } => {
                put("type", json!("string"));
                put("enum", json!(values));
                if let Some(titles) = titles {
                    put("enumNames", json!(titles));
                }
            }
        }
        if let Some(title) = &self.title {
            put("title", json!(title));
        }
        if let Some(description) = &self.description {
            put("description", json!(description));
        }
        if let Some(default) = &self.default {
            put("default", default.clone());
        }
        Value::Object(map)
    }

    /// Checks an answer value against this schema, recording problems at `path`.
    pub fn check_value(&self, value: &Value, path: &str, problems: &mut Problems) {
        match &self.kind {
            FieldKind::String { min_length, max_length, pattern, format } => {
                let Some(text) = value.as_str() else {
                    problems.push(path, format!("must be a string, not {}", type_name(value)));
                    return;
                };
                let before = problems.len();
                text::check(path, text, Lines::Multi, FREE_TEXT_MAX_BYTES, problems);
                if problems.len() > before {
                    return;
                }
                let chars = text.chars().count() as u64;
                if let Some(min) = min_length.filter(|&min| chars < min) {
                    problems.push(path, format!("must be at least {min} characters long (it is {chars})"));
                }
                if let Some(max) = max_length.filter(|&max| chars > max) {
                    problems.push(path, format!("must be at most {max} characters long (it is {chars})"));
                }
                if let Some(pattern) = pattern {
                    // The pattern compiled when the schema was read; a failure here cannot match.
                    let matched = compile(pattern).is_ok_and(|re| re.is_match(text));
                    if !matched {
                        problems.push(path, format!("must match the pattern {pattern}"));
                    }
                }
                if let Some(format) = format.filter(|f| !f.matches(text)) {
                    problems.push(path, format!("must be {}", format.example()));
                }
            }
            FieldKind::Number { integer, minimum, maximum } => {
                let Some(n) = value.as_f64().filter(|n| n.is_finite()) else {
                    problems.push(path, format!("must be a number, not {}", type_name(value)));
                    return;
                };
                if *integer && n.fract() != 0.0 {
                    problems.push(path, format!("must be a whole number (it is {n})"));
                }
                if let Some(min) = minimum.filter(|&min| n < min) {
                    problems.push(path, format!("must be at least {min} (it is {n})"));
                }
                if let Some(max) = maximum.filter(|&max| n > max) {
                    problems.push(path, format!("must be at most {max} (it is {n})"));
                }
            }
            FieldKind::Boolean => {
                if !value.is_boolean() {
                    problems.push(path, format!("must be true or false, not {}", type_name(value)));
                }
            }
            FieldKind::Enum { values, .. } => match value.as_str() {
                Some(text) if values.iter().any(|v| v == text) => {}
                Some(text) => problems.push(
                    path,
                    format!("{} is not one of the allowed values: {}", text::quote(text, 60), values.join(", ")),
                ),
                None => problems.push(path, format!("must be one of {}, not {}", values.join(", "), type_name(value))),
            },
        }
    }
}

fn number(n: f64, integer: bool) -> Value {
    // Whole numbers of an integer schema are written as JSON integers, as they were given.
    if integer && n.fract() == 0.0 && n.abs() < 9.0e15 { json!(n as i64) } else { json!(n) }
}

fn compile(pattern: &str) -> Result<regex::Regex, regex::Error> {
    regex::RegexBuilder::new(pattern).size_limit(256 * 1024).dfa_size_limit(1024 * 1024).build()
}

fn parse_string(fields: &Fields<'_>, problems: &mut Problems) -> Option<FieldKind> {
    let min_length = fields.count("minLength", problems);
    let max_length = fields.count("maxLength", problems);
    let limit = FREE_TEXT_MAX_BYTES as u64;
    if let Some(max) = max_length.filter(|&max| max > limit) {
        problems.push(fields.path("maxLength"), format!("is {max}; the largest allowed is {limit}"));
    }
    if let Some(max) = max_length.filter(|&max| max == 0) {
        problems.push(fields.path("maxLength"), format!("is {max}; an answer needs at least 1 character"));
    }
    if let (Some(min), Some(max)) = (min_length, max_length)
        && min > max
    {
        problems.push(fields.path("minLength"), format!("is {min}, more than maxLength {max}"));
    }
    let pattern = fields.string("pattern", problems);
    if let Some(pattern) = pattern {
        let path = fields.path("pattern");
        if pattern.len() > PATTERN_MAX_BYTES {
            problems.push(path, format!("is {} bytes long; the limit is {PATTERN_MAX_BYTES} bytes", pattern.len()));
        } else if let Err(err) = compile(pattern) {
            let reason = err.to_string().lines().last().unwrap_or_default().trim().to_owned();
            problems.push(path, format!("is not a valid regular expression ({reason})"));
        }
    }
    let format = match fields.string("format", problems) {
        None => None,
        Some(name) => {
            let format = StringFormat::parse(name);
            if format.is_none() {
                let known: Vec<&str> = StringFormat::ALL.iter().map(|f| f.as_str()).collect();
                problems.push(
                    fields.path("format"),
                    format!("{} is not supported; use one of {}", text::quote(name, 40), known.join(", ")),
                );
            }
            format
        }
    };
    Some(FieldKind::String { min_length, max_length, pattern: pattern.map(str::to_owned), format })
}

fn parse_number(fields: &Fields<'_>, integer: bool, problems: &mut Problems) -> Option<FieldKind> {
    let mut bound = |key: &str| {
        let n = fields.number(key, problems)?;
        if !n.is_finite() {
            problems.push(fields.path(key), "must be a finite number");
            return None;
        }
        if integer && n.fract() != 0.0 {
            problems.push(fields.path(key), format!("is {n}; an integer field needs whole-number bounds"));
        }
        Some(n)
    };
    let minimum = bound("minimum");
    let maximum = bound("maximum");
    if let (Some(min), Some(max)) = (minimum, maximum)
        && min > max
    {
        problems.push(fields.path("minimum"), format!("is {min}, more than maximum {max}"));
    }
    Some(FieldKind::Number { integer, minimum, maximum })
}

fn parse_enum(fields: &Fields<'_>, problems: &mut Problems) -> Option<FieldKind> {
    if fields.has("enum") && fields.has("oneOf") {
        problems.push(fields.path("oneOf"), "give the values either as enum (with enumNames) or as oneOf, not both");
        return None;
    }
    let (values, titles) = if fields.has("oneOf") {
        if fields.has("enumNames") {
            problems.push(fields.path("enumNames"), "belongs with enum; with oneOf, put each title beside its const");
        }
        read_one_of(fields, problems)?
    } else {
        let values = read_strings(fields, "enum", problems)?;
        let titles = if fields.has("enumNames") { Some(read_strings(fields, "enumNames", problems)?) } else { None };
        if let Some(titles) = &titles
            && titles.len() != values.len()
        {
            problems.push(
                fields.path("enumNames"),
                format!("has {} titles for {} values; give one title per value", titles.len(), values.len()),
            );
        }
        (values, titles)
    };
    check_enum_values(fields, &values, problems);
    Some(FieldKind::Enum { values, titles })
}

fn read_strings(fields: &Fields<'_>, key: &str, problems: &mut Problems) -> Option<Vec<String>> {
    let items = fields.array(key, problems)?;
    let path = fields.path(key);
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match item.as_str() {
            Some(text) => {
                text::check(&index(&path, i), text, Lines::Single, LABEL_MAX_BYTES, problems);
                out.push(text.to_owned());
            }
            None => problems.push(index(&path, i), format!("must be a string, not {}", type_name(item))),
        }
    }
    Some(out)
}

fn read_one_of(fields: &Fields<'_>, problems: &mut Problems) -> Option<(Vec<String>, Option<Vec<String>>)> {
    let items = fields.array("oneOf", problems)?;
    let path = fields.path("oneOf");
    let mut values = Vec::with_capacity(items.len());
    let mut titles = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let item_path = index(&path, i);
        let Some(choice) = object_of(item, &item_path, &["const", "title"], "keyword", problems) else { continue };
        if let Some(value) = choice.required_string("const", problems) {
            text::check(&choice.path("const"), value, Lines::Single, LABEL_MAX_BYTES, problems);
            values.push(value.to_owned());
        }
        let title = choice.string("title", problems).unwrap_or_default();
        if !title.is_empty() {
            text::check(&choice.path("title"), title, Lines::Single, LABEL_MAX_BYTES, problems);
        }
        titles.push(title.to_owned());
    }
    let any_title = titles.iter().any(|t| !t.is_empty());
    if any_title && titles.iter().any(String::is_empty) {
        problems.push(path, "give every oneOf entry a title, or none");
    }
    Some((values, any_title.then_some(titles)))
}

fn check_enum_values(fields: &Fields<'_>, values: &[String], problems: &mut Problems) {
    let key = if fields.has("oneOf") { "oneOf" } else { "enum" };
    let path = fields.path(key);
    if values.is_empty() {
        problems.push(&path, "must list at least one value");
    }
    if values.len() > ENUM_MAX_VALUES {
        problems.push(&path, format!("lists {} values; the limit is {ENUM_MAX_VALUES}", values.len()));
    }
    for (i, value) in values.iter().enumerate() {
        if values[..i].contains(value) {
            problems
                .push(index(&path, i), format!("{} is listed twice; values must be unique", text::quote(value, 40)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(value: Value) -> Result<FieldSchema, Vec<String>> {
        let mut problems = Problems::new();
        let schema = FieldSchema::parse(&value, "schema", &mut problems);
        match schema {
            Some(schema) if problems.is_empty() => Ok(schema),
            _ => Err(problems.iter().map(ToString::to_string).collect()),
        }
    }

    fn check(schema: &FieldSchema, value: Value) -> Vec<String> {
        let mut problems = Problems::new();
        schema.check_value(&value, "answer", &mut problems);
        problems.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn reads_each_kind_and_writes_it_back_unchanged() {
        for schema in [
            json!({"type": "string", "minLength": 2, "maxLength": 40, "pattern": "^[a-z]+$", "format": "email", "title": "T", "description": "D"}),
            json!({"type": "number", "minimum": 0.5, "maximum": 9.5, "default": 1.5}),
            json!({"type": "integer", "minimum": 1, "maximum": 10}),
            json!({"type": "boolean", "default": true}),
            json!({"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"], "default": "b"}),
        ] {
            let parsed = parse(schema.clone()).unwrap();
            assert_eq!(parsed.to_value(), schema);
        }
    }

    #[test]
    fn one_of_with_titles_becomes_an_enum() {
        let schema = parse(
            json!({"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]}),
        )
        .unwrap();
        assert_eq!(
            schema.kind,
            FieldKind::Enum {
                values: vec!["s".into(), "l".into()],
                titles: Some(vec!["Small".into(), "Large".into()])
            }
        );
    }

    #[test]
    fn unknown_keywords_and_types_are_named() {
        assert_eq!(
            parse(json!({"type": "number", "exclusiveMinimum": 0})).unwrap_err(),
            vec![
                "schema.exclusiveMinimum: unknown keyword; remove it (allowed here: type, title, description, default, minimum, maximum)"
            ]
        );
        assert_eq!(
            parse(json!({"type": "object"})).unwrap_err(),
            vec![
                "schema.type: \"object\" is not supported; use \"string\", \"number\", \"integer\" or \"boolean\" (objects and arrays are not)"
            ]
        );
        assert_eq!(
            parse(json!({"minimum": 1})).unwrap_err(),
            vec!["schema.type: is required: one of \"string\", \"number\", \"integer\", \"boolean\""]
        );
        assert_eq!(
            parse(json!("string")).unwrap_err(),
            vec!["schema: must be an object such as {\"type\": \"string\"}, not a string"]
        );
    }

    #[test]
    fn inconsistent_constraints_are_refused_all_at_once() {
        let errors =
            parse(json!({"type": "string", "minLength": 5, "maxLength": 3, "pattern": "(", "format": "phone"}))
                .unwrap_err();
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert_eq!(errors[0], "schema.minLength: is 5, more than maxLength 3");
        assert!(errors[1].starts_with("schema.pattern: is not a valid regular expression"), "{}", errors[1]);
        assert_eq!(errors[2], "schema.format: \"phone\" is not supported; use one of email, uri, date, date-time");
        assert_eq!(
            parse(json!({"type": "integer", "minimum": 0.5, "maximum": -1})).unwrap_err(),
            vec![
                "schema.minimum: is 0.5; an integer field needs whole-number bounds",
                "schema.minimum: is 0.5, more than maximum -1"
            ]
        );
        assert_eq!(
            parse(json!({"type": "string", "maxLength": 100000})).unwrap_err(),
            vec!["schema.maxLength: is 100000; the largest allowed is 8192"]
        );
        assert_eq!(
            parse(json!({"type": "string", "minLength": -1})).unwrap_err(),
            vec!["schema.minLength: must be a whole number of zero or more (it is -1)"]
        );
    }

    #[test]
    fn enum_rules() {
        assert_eq!(
            parse(json!({"type": "string", "enum": []})).unwrap_err(),
            vec!["schema.enum: must list at least one value"]
        );
        assert_eq!(
            parse(json!({"type": "string", "enum": ["a", "a"]})).unwrap_err(),
            vec!["schema.enum[1]: \"a\" is listed twice; values must be unique"]
        );
        assert_eq!(
            parse(json!({"type": "string", "enum": ["a", "b"], "enumNames": ["A"]})).unwrap_err(),
            vec!["schema.enumNames: has 1 titles for 2 values; give one title per value"]
        );
        assert_eq!(
            parse(json!({"type": "string", "enum": ["a"], "oneOf": [{"const": "a"}]})).unwrap_err(),
            vec!["schema.oneOf: give the values either as enum (with enumNames) or as oneOf, not both"]
        );
        let many: Vec<String> = (0..65).map(|i| format!("v{i}")).collect();
        assert_eq!(
            parse(json!({"type": "string", "enum": many})).unwrap_err(),
            vec!["schema.enum: lists 65 values; the limit is 64"]
        );
    }

    #[test]
    fn a_default_must_satisfy_its_schema() {
        assert_eq!(
            parse(json!({"type": "integer", "maximum": 3, "default": 7})).unwrap_err(),
            vec!["schema.default: must be at most 3 (it is 7)"]
        );
    }

    #[test]
    fn string_values() {
        let schema = parse(json!({"type": "string", "minLength": 3, "maxLength": 5, "pattern": "^[a-z]+$"})).unwrap();
        assert!(check(&schema, json!("abcd")).is_empty());
        assert_eq!(check(&schema, json!("ab")), vec!["answer: must be at least 3 characters long (it is 2)"]);
        assert_eq!(
            check(&schema, json!("ABCDEFG")),
            vec!["answer: must be at most 5 characters long (it is 7)", "answer: must match the pattern ^[a-z]+$"]
        );
        assert_eq!(check(&schema, json!(5)), vec!["answer: must be a string, not a number"]);
        assert_eq!(check(&schema, json!("   ")), vec!["answer: must not be empty or only whitespace"]);
        let email = parse(json!({"type": "string", "format": "email"})).unwrap();
        assert_eq!(check(&email, json!("nope")), vec!["answer: must be an email address such as name@example.com"]);
        let unicode = parse(json!({"type": "string", "maxLength": 2})).unwrap();
        assert!(check(&unicode, json!("éü")).is_empty(), "length counts characters, not bytes");
    }

    #[test]
    fn number_values() {
        let schema = parse(json!({"type": "integer", "minimum": 1, "maximum": 10})).unwrap();
        assert!(check(&schema, json!(10)).is_empty());
        assert!(check(&schema, json!(3.0)).is_empty());
        assert_eq!(check(&schema, json!(2.5)), vec!["answer: must be a whole number (it is 2.5)"]);
        assert_eq!(check(&schema, json!(0)), vec!["answer: must be at least 1 (it is 0)"]);
        assert_eq!(check(&schema, json!("5")), vec!["answer: must be a number, not a string"]);
    }

    #[test]
    fn boolean_and_enum_values() {
        let boolean = parse(json!({"type": "boolean"})).unwrap();
        assert!(check(&boolean, json!(false)).is_empty());
        assert_eq!(check(&boolean, json!("yes")), vec!["answer: must be true or false, not a string"]);
        let choice = parse(json!({"type": "string", "enum": ["red", "green"]})).unwrap();
        assert!(check(&choice, json!("green")).is_empty());
        assert_eq!(
            check(&choice, json!("blue")),
            vec!["answer: \"blue\" is not one of the allowed values: red, green"]
        );
    }
}
