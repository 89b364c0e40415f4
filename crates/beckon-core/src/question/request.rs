//! The request types and their one reader.

use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::approval::Approval;
use crate::json_reader::{Fields, object, type_name};
use crate::limits::{
    DESCRIPTION_MAX_BYTES, HEADER_MAX_CHARS, LABEL_MAX_BYTES, MAX_OPTIONS, MAX_QUESTIONS, MIN_OPTIONS, MIN_QUESTIONS,
    PREVIEW_MAX_BYTES, QUESTION_MAX_BYTES, REQUEST_MAX_BYTES,
};
use crate::problem::{Problems, index};
use crate::question::schema::FieldSchema;
use crate::text::{self, Lines};

/// One `ask_user_question` call: 1–4 questions, always valid once built.
///
/// It serialises to the JSON the agent gave (Claude Code's AskUserQuestion input shape, plus
/// free-form items with a `schema`), and deserialising runs the same checks as [`parse`].
/// Claude Code's top-level `answers` and `annotations` (which its own dialog fills in) are
/// accepted when well-formed and not kept: the person's answer is what counts. Its `metadata`
/// is kept and sent back as given.
///
/// [`parse`]: QuestionRequest::parse
#[derive(Debug, Clone, PartialEq)]
pub struct QuestionRequest {
    items: Vec<QuestionItem>,
    metadata: Option<serde_json::Map<String, Value>>,
    // Boxed: most questions are not approvals, and events carry requests by value.
    approval: Option<Box<Approval>>,
    /// Asked of the person by an agent's own interface (Claude Code's AskUserQuestion, an MCP
    /// server's form, relayed by a hook): only the person may answer it.
    for_the_person: bool,
}

/// One question of a request.
#[derive(Debug, Clone, PartialEq)]
pub enum QuestionItem {
    /// Pick one (or several) of 2–4 labelled options, or write an "Other" answer.
    Choice(ChoiceQuestion),
    /// Give a value that fits a small schema (text, number, yes/no, one of a list).
    FreeForm(FreeFormQuestion),
}

/// A question with options, as in Claude Code's AskUserQuestion.
#[derive(Debug, Clone, PartialEq)]
pub struct ChoiceQuestion {
    /// The full question text; answers are keyed by it.
    pub question: String,
    /// A short label (at most 12 characters) shown as a chip.
    pub header: Option<String>,
    /// 2–4 options with unique labels.
    pub options: Vec<QuestionOption>,
    /// Whether several options may be chosen.
    pub multi_select: bool,
}

/// One option of a choice question.
#[derive(Debug, Clone, PartialEq)]
pub struct QuestionOption {
    /// What the person picks; unique within its question.
    pub label: String,
    /// What choosing it means.
    pub description: Option<String>,
    /// Shown when the option is focused or chosen: a mockup, a code snippet, a comparison
    /// (Markdown, at most [`PREVIEW_MAX_BYTES`]).
    pub preview: Option<String>,
}

/// A question answered with a value of a given schema.
#[derive(Debug, Clone, PartialEq)]
pub struct FreeFormQuestion {
    /// The full question text; answers are keyed by it.
    pub question: String,
    /// A short label (at most 12 characters) shown as a chip.
    pub header: Option<String>,
    /// What the answer must look like.
    pub schema: FieldSchema,
}

impl ChoiceQuestion {
    /// The label of the option `text` names, matched as the window shows labels: without the
    /// spaces around either (uniqueness is checked the same way, so at most one matches).
    pub fn label_named(&self, text: &str) -> Option<&str> {
        self.options.iter().find(|option| option.label.trim() == text.trim()).map(|option| option.label.as_str())
    }
}

impl QuestionItem {
    /// The full question text.
    pub fn question(&self) -> &str {
        match self {
            Self::Choice(item) => &item.question,
            Self::FreeForm(item) => &item.question,
        }
    }

    /// The short header, if one was given.
    pub fn header(&self) -> Option<&str> {
        match self {
            Self::Choice(item) => item.header.as_deref(),
            Self::FreeForm(item) => item.header.as_deref(),
        }
    }
}

const REQUEST_FIELDS: [&str; 4] = ["questions", "answers", "annotations", "metadata"];
const STORED_FIELDS: [&str; 6] = ["questions", "answers", "annotations", "metadata", "approval", "person_only"];
const CHOICE_FIELDS: [&str; 4] = ["question", "header", "options", "multiSelect"];
const FREE_FORM_FIELDS: [&str; 3] = ["question", "header", "schema"];
const OPTION_FIELDS: [&str; 3] = ["label", "description", "preview"];

impl QuestionRequest {
    /// Reads and checks a request given as JSON (the tool call's input), reporting every
    /// problem at once, each at its JSON path.
    pub fn parse(value: &Value) -> Result<Self, Problems> {
        let size = json_size(value);
        if size > REQUEST_MAX_BYTES {
            return Err(Problems::one(
                "",
                format!(
                    "the request is {size} bytes as JSON; the limit is {REQUEST_MAX_BYTES} bytes, so shorten the question texts and descriptions or ask fewer questions"
                ),
            ));
        }
        let mut problems = Problems::new();
        let (items, metadata) = read_request(value, &REQUEST_FIELDS, &mut problems);
        problems.into_result(QuestionRequest { items, metadata, approval: None, for_the_person: false })
    }

    /// The question that puts `approval` to the person: one choice of its options, with the
    /// call's preview on "Allow".
    pub fn for_approval(approval: Approval) -> Self {
        let item = QuestionItem::Choice(approval.question());
        QuestionRequest { items: vec![item], metadata: None, approval: Some(Box::new(approval)), for_the_person: false }
    }

    /// The tool call this question asks permission for, when it is an approval.
    pub fn approval(&self) -> Option<&Approval> {
        self.approval.as_deref()
    }

    /// This request as one the person alone may answer: an agent's own interface asked the
    /// person (Claude Code's AskUserQuestion or an MCP form, relayed by a hook), so the agent
    /// that waits must not answer it for them through Beckon.
    pub fn for_the_person(mut self) -> Self {
        self.for_the_person = true;
        self
    }

    /// Whether an agent's own interface asked this of the person
    /// ([`for_the_person`](Self::for_the_person)).
    pub(crate) fn asked_of_the_person(&self) -> bool {
        self.for_the_person
    }

    /// Whether some answer to this request is the person's alone to give: allowing an approval,
    /// or any answer to a question asked of the person. Declining (and denying) stays open.
    pub fn person_only(&self) -> bool {
        self.approval.is_some() || self.for_the_person
    }

    /// Reads a request as Beckon stored it: an agent's request, or an approval's question
    /// with its `approval` (which agents cannot send: an approval is made only by
    /// [`for_approval`](Self::for_approval)).
    fn parse_stored(value: &Value) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let (items, metadata) = read_request(value, &STORED_FIELDS, &mut problems);
        let approval = match value.get("approval") {
            None => None,
            Some(approval) => match Approval::parse_stored(approval, "approval") {
                Ok(approval) => Some(Box::new(approval)),
                Err(found) => {
                    problems.extend(found);
                    None
                }
            },
        };
        let for_the_person = match value.get("person_only") {
            None => false,
            Some(Value::Bool(flag)) => *flag,
            Some(other) => {
                problems.push("person_only", format!("must be true or false, not {}", type_name(other)));
                false
            }
        };
        problems.into_result(QuestionRequest { items, metadata, approval, for_the_person })
    }

    /// Reads and checks a request given as JSON text.
    pub fn parse_str(text: &str) -> Result<Self, Problems> {
        if text.len() > REQUEST_MAX_BYTES * 2 {
            return Err(Problems::one(
                "",
                format!("the request is {} bytes; the limit is {REQUEST_MAX_BYTES} bytes", text.len()),
            ));
        }
        let value: Value =
            serde_json::from_str(text).map_err(|err| Problems::one("", format!("is not valid JSON ({err})")))?;
        Self::parse(&value)
    }

    /// Builds a request from items, with the same checks as [`parse`](Self::parse).
    pub fn new(items: Vec<QuestionItem>) -> Result<Self, Problems> {
        Self::parse(&Self { items, metadata: None, approval: None, for_the_person: false }.to_value())
    }

    /// The questions, in the order asked.
    pub fn items(&self) -> &[QuestionItem] {
        &self.items
    }

    /// Claude Code's `metadata` (such as `{"source": "remember"}`), as given.
    pub fn metadata(&self) -> Option<&serde_json::Map<String, Value>> {
        self.metadata.as_ref()
    }

    /// The request as the JSON an agent would send.
    pub fn to_value(&self) -> Value {
        // Serialising plain data into a Value cannot fail.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// A short summary for notifications and lists: the first header, else the first words
    /// of the first question.
    pub fn summary(&self) -> String {
        let Some(first) = self.items.first() else { return String::new() };
        if let Some(header) = first.header() {
            return header.to_owned();
        }
        let mut summary = String::new();
        for word in first.question().split_whitespace() {
            if summary.chars().count() + word.chars().count() > 40 {
                summary.push('…');
                break;
            }
            if !summary.is_empty() {
                summary.push(' ');
            }
            summary.push_str(word);
        }
        summary
    }
}

/// The length of `value` as compact JSON, counted without building the text.
fn json_size(value: &Value) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    // Writing to a counter cannot fail.
    let _ = serde_json::to_writer(&mut counter, value);
    counter.0
}

/// The text an agent gets back as a tool error when its request was refused.
pub fn tool_error_text(problems: &Problems) -> String {
    let mut text = String::from(
        "ask_user_question was not sent to the person because its input is invalid. Fix these problems and call it again:",
    );
    for problem in problems {
        text.push_str("\n- ");
        text.push_str(&problem.to_string());
    }
    text
}

type Metadata = Option<serde_json::Map<String, Value>>;

fn read_request(value: &Value, allowed: &[&str], problems: &mut Problems) -> (Vec<QuestionItem>, Metadata) {
    let Some(fields) = object(value, "", allowed, problems) else { return (Vec::new(), None) };
    let metadata = read_claude_code_extras(&fields, problems);
    if !fields.require("questions", problems) {
        return (Vec::new(), metadata);
    }
    let Some(questions) = fields.array("questions", problems) else { return (Vec::new(), metadata) };
    let path = fields.path("questions");
    if !(MIN_QUESTIONS..=MAX_QUESTIONS).contains(&questions.len()) {
        problems.push(
            &path,
            format!(
                "has {} questions; ask {MIN_QUESTIONS} to {MAX_QUESTIONS} in one call (ask the rest in a later call)",
                questions.len()
            ),
        );
        if questions.len() > MAX_QUESTIONS * 4 {
            return (Vec::new(), metadata);
        }
    }
    let items: Vec<QuestionItem> =
        questions.iter().enumerate().filter_map(|(i, item)| read_item(item, &index(&path, i), problems)).collect();
    // Compared on the raw texts, so a repeat is reported even when its item has other problems.
    let texts: Vec<Option<&str>> =
        questions.iter().map(|q| q.get("question").and_then(Value::as_str).map(str::trim)).collect();
    for (i, text) in texts.iter().enumerate() {
        let Some(text) = text.filter(|t| !t.is_empty()) else { continue };
        if let Some(first) = texts[..i].iter().position(|earlier| *earlier == Some(text)) {
            problems.push(
                format!("{}.question", index(&path, i)),
                format!(
                    "repeats questions[{first}].question; every question text must be unique because answers are keyed by it"
                ),
            );
        }
    }
    (items, metadata)
}

/// Claude Code's top-level `answers` (question text → answer), `annotations` (question text →
/// `{preview?, notes?}`) and `metadata` (an object): checked for shape, the first two dropped.
fn read_claude_code_extras(fields: &Fields<'_>, problems: &mut Problems) -> Metadata {
    check_keyed_by_question(fields, "answers", Value::is_string, "a string (the answer's text)", problems);
    check_keyed_by_question(fields, "annotations", Value::is_object, "an object such as {\"notes\": \"…\"}", problems);
    match fields.get("metadata") {
        None => None,
        Some(Value::Object(map)) => Some(map.clone()),
        Some(other) => {
            problems.push(
                "metadata",
                format!("must be an object such as {{\"source\": \"review\"}}, not {}", type_name(other)),
            );
            None
        }
    }
}

fn read_item(value: &Value, path: &str, problems: &mut Problems) -> Option<QuestionItem> {
    let (has_options, has_schema) = match value {
        Value::Object(map) => (map.contains_key("options"), map.contains_key("schema")),
        other => {
            problems.push(path, format!("must be an object with question and options, not {}", type_name(other)));
            return None;
        }
    };
    if has_options && has_schema {
        problems.push(
            path,
            "has both options and schema; give options for a choice question or a schema for a free-form answer, not both",
        );
        return None;
    }
    let allowed: &[&str] = if has_schema { &FREE_FORM_FIELDS } else { &CHOICE_FIELDS };
    let fields = object(value, path, allowed, problems)?;
    let before = problems.len();
    let question = fields.required_string("question", problems);
    if let Some(question) = question {
        text::check(&fields.path("question"), question, Lines::Multi, QUESTION_MAX_BYTES, problems);
    }
    let header = read_header(&fields, problems);
    let item = if has_schema {
        let schema = FieldSchema::parse(fields.get("schema")?, &fields.path("schema"), problems);
        QuestionItem::FreeForm(FreeFormQuestion {
            question: question.unwrap_or_default().to_owned(),
            header,
            schema: schema?,
        })
    } else {
        if !has_options {
            problems.push(
                fields.path("options"),
                format!(
                    "is required: give {MIN_OPTIONS} to {MAX_OPTIONS} options (or a schema for a free-form answer)"
                ),
            );
        }
        let options = read_options(&fields, problems);
        let multi_select = fields.bool("multiSelect", problems).unwrap_or(false);
        QuestionItem::Choice(ChoiceQuestion {
            question: question.unwrap_or_default().to_owned(),
            header,
            options,
            multi_select,
        })
    };
    (problems.len() == before).then_some(item)
}

/// Checks that field `key`, when given, is an object keyed by question text whose every value
/// passes `fits` (described as `expected`).
fn check_keyed_by_question(
    fields: &Fields<'_>,
    key: &str,
    fits: fn(&Value) -> bool,
    expected: &str,
    problems: &mut Problems,
) {
    match fields.get(key) {
        None => {}
        Some(Value::Object(map)) => {
            for (question, value) in map.iter().filter(|(_, value)| !fits(value)) {
                problems.push(
                    format!("{key}.{}", text::quote(question, 40)),
                    format!("must be {expected}, not {}", type_name(value)),
                );
            }
        }
        Some(other) => {
            problems.push(key, format!("must be an object keyed by question text, not {}", type_name(other)))
        }
    }
}

fn read_header(fields: &Fields<'_>, problems: &mut Problems) -> Option<String> {
    let header = fields.string("header", problems)?;
    let path = fields.path("header");
    // The character limit below is the binding one; bytes are bounded by the request size.
    text::check(&path, header, Lines::Single, usize::MAX, problems);
    let chars = header.chars().count();
    if chars > HEADER_MAX_CHARS {
        problems.push(
            path,
            format!("is {chars} characters long; the limit is {HEADER_MAX_CHARS}, so use a short label such as \"Auth method\""),
        );
    }
    Some(header.to_owned())
}

fn read_options(fields: &Fields<'_>, problems: &mut Problems) -> Vec<QuestionOption> {
    let Some(values) = fields.array("options", problems) else { return Vec::new() };
    let path = fields.path("options");
    if !(MIN_OPTIONS..=MAX_OPTIONS).contains(&values.len()) {
        problems.push(
            &path,
            format!(
                "has {} options; give {MIN_OPTIONS} to {MAX_OPTIONS} (an \"Other\" free-text answer is always offered as well)",
                values.len()
            ),
        );
    }
    let mut options: Vec<QuestionOption> = Vec::with_capacity(values.len());
    for (i, value) in values.iter().enumerate().take(MAX_OPTIONS * 4) {
        let option_path = index(&path, i);
        let Some(option) = object(value, &option_path, &OPTION_FIELDS, problems) else { continue };
        let label = option.required_string("label", problems).unwrap_or_default();
        let label_path = option.path("label");
        if option.has("label") {
            text::check(&label_path, label, Lines::Single, LABEL_MAX_BYTES, problems);
        }
        if let Some(first) = options.iter().position(|o| !label.trim().is_empty() && o.label.trim() == label.trim()) {
            problems.push(
                label_path,
                format!(
                    "{} repeats options[{first}].label; labels must be unique within a question",
                    text::quote(label, 40)
                ),
            );
        }
        let description = option.string("description", problems);
        if let Some(description) = description {
            text::check(&option.path("description"), description, Lines::Multi, DESCRIPTION_MAX_BYTES, problems);
        }
        let preview = option.string("preview", problems);
        if let Some(preview) = preview {
            text::check(&option.path("preview"), preview, Lines::Multi, PREVIEW_MAX_BYTES, problems);
        }
        options.push(QuestionOption {
            label: label.to_owned(),
            description: description.map(str::to_owned),
            preview: preview.map(str::to_owned),
        });
    }
    options
}

impl Serialize for QuestionRequest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("questions", &self.items)?;
        if let Some(metadata) = &self.metadata {
            map.serialize_entry("metadata", metadata)?;
        }
        if let Some(approval) = &self.approval {
            map.serialize_entry("approval", approval)?;
        }
        if self.for_the_person {
            map.serialize_entry("person_only", &true)?;
        }
        map.end()
    }
}

impl Serialize for QuestionItem {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("question", self.question())?;
        if let Some(header) = self.header() {
            map.serialize_entry("header", header)?;
        }
        match self {
            Self::Choice(item) => {
                map.serialize_entry("options", &item.options)?;
                map.serialize_entry("multiSelect", &item.multi_select)?;
            }
            Self::FreeForm(item) => map.serialize_entry("schema", &item.schema.to_value())?,
        }
        map.end()
    }
}

impl Serialize for QuestionOption {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("label", &self.label)?;
        if let Some(description) = &self.description {
            map.serialize_entry("description", description)?;
        }
        if let Some(preview) = &self.preview {
            map.serialize_entry("preview", preview)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for QuestionRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Self::parse_stored(&value).map_err(serde::de::Error::custom)
    }
}
