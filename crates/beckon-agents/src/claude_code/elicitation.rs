//! An MCP server's form (Claude Code's `Elicitation` hook) as Beckon free-form questions, one
//! per field of its `requested_schema`, and the person's answers as the form's content.
//!
//! Only what Beckon can ask is taken: 1 to 4 fields of the schema subset free-form questions
//! accept. Any other form (a URL to open, more fields, other keywords) is left to Claude
//! Code's own dialog.

use beckon_api::views::QuestionView;
use beckon_core::Outcome;
use serde_json::{Map, Value, json};

/// Most fields of a form Beckon asks (one question each).
const MAX_FIELDS: usize = 4;
/// Longest question text made from a form's message and a field, in characters.
const TEXT_MAX_CHARS: usize = 1000;

/// The request (`{questions, metadata}`) for the form in `event`, and the field names in the
/// questions' order; `None` for a form Beckon does not ask.
pub fn questions(event: &Value) -> Option<(Value, Vec<String>)> {
    if event.get("mode").and_then(Value::as_str).is_some_and(|mode| mode != "form") {
        return None;
    }
    let server = event.get("mcp_server_name")?.as_str()?;
    let message = event.get("message").and_then(Value::as_str).unwrap_or_default().trim();
    let schema = event.get("requested_schema")?.as_object()?;
    let properties = schema.get("properties")?.as_object()?;
    if properties.is_empty() || properties.len() > MAX_FIELDS {
        return None;
    }
    let mut items = Vec::with_capacity(properties.len());
    let mut names = Vec::with_capacity(properties.len());
    for (position, (name, field)) in properties.iter().enumerate() {
        let field = field.as_object()?;
        let label = field.get("title").and_then(Value::as_str).unwrap_or(name);
        let text =
            if position == 0 && !message.is_empty() { format!("{message}\n\n{label}") } else { label.to_owned() };
        let mut schema: Map<String, Value> = field.clone();
        // The title is the question's text already.
        schema.remove("title");
        items.push(json!({"question": short(&text), "header": header(name), "schema": schema}));
        names.push(name.clone());
    }
    let mut metadata = json!({"source": "mcp_elicitation", "mcp_server": server});
    if let Some(id) = event.get("elicitation_id").filter(|id| id.is_string()) {
        metadata["elicitation_id"] = id.clone();
    }
    Some((json!({"questions": items, "metadata": metadata}), names))
}

/// The form's content from an answered question's answers (one per field, in order).
pub fn content(outcome: &Outcome, names: &[String]) -> Option<Value> {
    let answers = match outcome {
        Outcome::Answered { answers } => answers.items(),
        Outcome::Declined { .. } | Outcome::Expired { .. } | Outcome::Cancelled { .. } => return None,
    };
    let mut content = Map::new();
    for (name, answer) in names.iter().zip(answers) {
        content.insert(name.clone(), answer.value.clone()?);
    }
    (content.len() == names.len()).then_some(Value::Object(content))
}

/// Whether the pending question `view` asks the form an `ElicitationResult` event settled.
pub fn settled_by(event: &Value, view: &QuestionView) -> bool {
    let Some(metadata) = view.input.metadata() else { return false };
    metadata.get("source").and_then(Value::as_str) == Some("mcp_elicitation")
        && event.get("elicitation_id").is_some_and(|id| metadata.get("elicitation_id") == Some(id))
        && event.get("mcp_server_name") == metadata.get("mcp_server")
}

fn header(name: &str) -> String {
    let mut header: String = name.chars().take(12).collect();
    if name.chars().count() > 12 {
        header = name.chars().take(11).chain(['…']).collect();
    }
    header
}

fn short(text: &str) -> String {
    if text.chars().count() <= TEXT_MAX_CHARS {
        return text.to_owned();
    }
    text.chars().take(TEXT_MAX_CHARS - 1).chain(['…']).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form() -> Value {
        json!({"hook_event_name": "Elicitation", "mcp_server_name": "deployer", "message": "Where should it go?",
            "mode": "form", "elicitation_id": "el-1", "requested_schema": {"type": "object", "properties": {
                "environment": {"type": "string", "title": "Environment", "enum": ["staging", "production"]},
                "replicas": {"type": "integer", "minimum": 1, "maximum": 9}}, "required": ["environment"]}})
    }

    #[test]
    fn a_form_becomes_one_free_form_question_per_field() {
        let (request, names) = questions(&form()).unwrap();
        assert_eq!(names, vec!["environment", "replicas"]);
        assert_eq!(
            request["questions"][0],
            json!({"question": "Where should it go?\n\nEnvironment", "header": "environment",
                "schema": {"type": "string", "enum": ["staging", "production"]}})
        );
        assert_eq!(request["questions"][1]["question"], "replicas");
        assert_eq!(
            request["metadata"],
            json!({"source": "mcp_elicitation", "mcp_server": "deployer", "elicitation_id": "el-1"})
        );
    }

    #[test]
    fn forms_beckon_cannot_ask_are_left_to_claude_code() {
        let mut url = form();
        url["mode"] = json!("url");
        assert!(questions(&url).is_none());
        let mut wide = form();
        wide["requested_schema"]["properties"] = json!({"a": {"type": "string"}, "b": {"type": "string"},
            "c": {"type": "string"}, "d": {"type": "string"}, "e": {"type": "string"}});
        assert!(questions(&wide).is_none());
    }

    #[test]
    fn answers_become_the_content_and_the_result_settles_its_own_form() {
        let names = vec!["environment".to_owned(), "replicas".to_owned()];
        let outcome = json!({"outcome": "answered", "answers": [{"value": "staging"}, {"value": 3}]});
        let outcome: Outcome = serde_json::from_value(outcome).unwrap();
        assert_eq!(content(&outcome, &names), Some(json!({"environment": "staging", "replicas": 3})));
        let (request, _) = questions(&form()).unwrap();
        let view = crate::testing::view(json!({"input": request}));
        let done =
            json!({"hook_event_name": "ElicitationResult", "mcp_server_name": "deployer", "elicitation_id": "el-1"});
        assert!(settled_by(&done, &view));
        let other =
            json!({"hook_event_name": "ElicitationResult", "mcp_server_name": "deployer", "elicitation_id": "el-2"});
        assert!(!settled_by(&other, &view));
    }
}
