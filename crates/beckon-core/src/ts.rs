//! TypeScript shapes for types whose JSON is written by hand (the question request and its
//! schema follow Claude Code's and MCP's JSON, not the Rust layout). Fields of those types use
//! `#[ts(as = "...")]` to take these shapes.

// Only the derived TypeScript declarations are used; the values are never built.
#![allow(dead_code, clippy::large_enum_variant)]

use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

/// An `ask_user_question` request.
#[derive(Debug, Serialize, TS)]
#[ts(rename = "QuestionRequest")]
pub struct QuestionRequestShape {
    questions: Vec<QuestionItemShape>,
    #[ts(optional)]
    metadata: Option<std::collections::BTreeMap<String, Value>>,
    /// Present when the question asks permission for a tool call.
    #[ts(optional)]
    approval: Option<ApprovalShape>,
    /// Present (true) when an agent's own interface asked the person: only they may answer.
    #[ts(optional)]
    person_only: Option<bool>,
}

/// A tool call waiting for permission.
#[derive(Debug, Serialize, TS)]
#[ts(rename = "Approval")]
pub struct ApprovalShape {
    tool_name: String,
    input: std::collections::BTreeMap<String, Value>,
    #[ts(optional)]
    suggestions: Option<Vec<Value>>,
    #[ts(optional)]
    project: Option<String>,
    #[ts(optional)]
    session: Option<String>,
    #[ts(optional)]
    by: Option<String>,
    /// The options the person may choose, in order ("Allow always" only when offered).
    /// Absent from an approval written by a Beckon older than this field: offer Allow and Deny.
    #[ts(optional)]
    choices: Option<Vec<crate::approval::ApprovalChoice>>,
    /// The input field the person may edit before allowing; absent when nothing may be.
    #[ts(optional)]
    editable_field: Option<crate::approval::EditableField>,
}

/// One question: with options, or free-form with a schema.
#[derive(Debug, Serialize, TS)]
#[serde(untagged)]
#[ts(rename = "QuestionItem")]
pub enum QuestionItemShape {
    /// A choice question.
    Choice(ChoiceQuestionShape),
    /// A free-form question.
    FreeForm(FreeFormQuestionShape),
}

/// A question with options.
#[derive(Debug, Serialize, TS)]
#[ts(rename = "ChoiceQuestion")]
pub struct ChoiceQuestionShape {
    question: String,
    #[ts(optional)]
    header: Option<String>,
    options: Vec<QuestionOptionShape>,
    #[serde(rename = "multiSelect")]
    multi_select: bool,
}

/// One option.
#[derive(Debug, Serialize, TS)]
#[ts(rename = "QuestionOption")]
pub struct QuestionOptionShape {
    label: String,
    #[ts(optional)]
    description: Option<String>,
    #[ts(optional)]
    preview: Option<String>,
}

/// A free-form question.
#[derive(Debug, Serialize, TS)]
#[ts(rename = "FreeFormQuestion")]
pub struct FreeFormQuestionShape {
    question: String,
    #[ts(optional)]
    header: Option<String>,
    schema: FieldSchemaShape,
}

/// The JSON-Schema subset of a free-form answer.
#[derive(Debug, Serialize, TS)]
#[ts(rename = "FieldSchema")]
pub struct FieldSchemaShape {
    #[serde(rename = "type")]
    #[ts(type = "\"string\" | \"number\" | \"integer\" | \"boolean\"")]
    kind: String,
    #[ts(optional)]
    title: Option<String>,
    #[ts(optional)]
    description: Option<String>,
    #[ts(optional)]
    default: Option<Value>,
    #[serde(rename = "minLength")]
    #[ts(optional)]
    min_length: Option<f64>,
    #[serde(rename = "maxLength")]
    #[ts(optional)]
    max_length: Option<f64>,
    #[ts(optional)]
    pattern: Option<String>,
    #[ts(optional, type = "\"email\" | \"uri\" | \"date\" | \"date-time\"")]
    format: Option<String>,
    #[ts(optional)]
    minimum: Option<f64>,
    #[ts(optional)]
    maximum: Option<f64>,
    #[serde(rename = "enum")]
    #[ts(optional)]
    values: Option<Vec<String>>,
    #[serde(rename = "enumNames")]
    #[ts(optional)]
    titles: Option<Vec<String>>,
}
