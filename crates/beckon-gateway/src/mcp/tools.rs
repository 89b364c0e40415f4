//! The two tools as clients see them, and reading their arguments. The schemas are written out
//! here, not derived, so `ask_user_question` takes exactly Claude Code's AskUserQuestion input.

use std::sync::Arc;
use std::time::Duration;

use beckon_core::{Problems, QuestionRequest, RequestId};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Map, Value, json};

/// The tool that asks the person.
pub const ASK: &str = beckon_core::conversation::ASK_USER_QUESTION;
/// The tool that keeps waiting on a question asked earlier.
pub const GET_ANSWER: &str = "get_answer";
/// The permission prompt tool (`claude -p --permission-prompt-tool mcp__beckon__approve`).
pub const APPROVE: &str = "approve";
/// How long `approve` waits for the person: the most any call of these tools waits, since a
/// permission prompt cannot be answered "pending".
pub const APPROVE_WAIT: Duration = Duration::from_secs(MAX_WAIT_SECONDS);

/// How long a call waits for the person unless told otherwise: under the usual 60 s client
/// timeout, so the client gets a "still waiting" result rather than an error.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(50);
/// The longest a call may be told to wait: below the 120 s after which an interactive Claude
/// Code session moves a running call to the background, where the model never sees its result.
pub const MAX_WAIT_SECONDS: u64 = 110;

/// Claude Code defers MCP tools behind its tool search unless a tool asks to be loaded: without
/// this its model is never offered Beckon's tools unless the person edits their configuration.
fn always_load() -> rmcp::model::MetaObject {
    let mut meta = Map::new();
    meta.insert("anthropic/alwaysLoad".into(), Value::Bool(true));
    rmcp::model::MetaObject(meta)
}

fn wait_property() -> Value {
    json!({
        "type": "number",
        "minimum": 0,
        "maximum": MAX_WAIT_SECONDS,
        "default": DEFAULT_WAIT.as_secs(),
        "description": format!(
            "How many seconds this call waits for the person (default {}, at most {MAX_WAIT_SECONDS}). If they \
             have not answered by then, the result has outcome \"pending\" and a request_id to pass to get_answer.",
            DEFAULT_WAIT.as_secs()
        ),
    })
}

fn object(value: Value) -> Arc<JsonObject> {
    Arc::new(match value {
        Value::Object(map) => map,
        _ => Map::new(),
    })
}

/// `ask_user_question`: Claude Code's AskUserQuestion schema and description, plus `wait_seconds`.
pub fn ask_tool() -> Tool {
    let spec = beckon_runtime::tools::ask_user_question_spec();
    let mut schema = spec.input_schema;
    if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        properties.insert("wait_seconds".into(), wait_property());
    }
    let description = format!(
        "{} If the person has not answered within wait_seconds, the result is {{\"outcome\": \"pending\", \
         \"request_id\": \"...\"}}: do not go on without the answer and do not ask again; call get_answer with \
         that request_id to keep waiting.",
        spec.description
    );
    let mut tool = Tool::new(ASK, description, object(schema))
        .with_title("Ask the person")
        .with_annotations(ToolAnnotations::new().read_only(false).destructive(false).open_world(false));
    tool.meta = Some(always_load());
    tool
}

/// `get_answer`: waits on a question an earlier `ask_user_question` left pending.
pub fn get_answer_tool() -> Tool {
    let schema = json!({
        "type": "object",
        "required": ["request_id"],
        "additionalProperties": false,
        "properties": {
            "request_id": {"type": "string", "description": "The request_id from a pending ask_user_question result."},
            "wait_seconds": wait_property(),
        }
    });
    let mut tool = Tool::new(
        GET_ANSWER,
        "Keep waiting for the person's answer to a question you asked with ask_user_question, whose result was \
         {\"outcome\": \"pending\", \"request_id\": \"...\"}. Returns the same result ask_user_question would \
         have (answered, declined, expired or cancelled), or pending again if they still have not answered: then \
         call get_answer again.",
        object(schema),
    )
    .with_title("Wait for the person's answer")
    .with_annotations(ToolAnnotations::new().read_only(true).open_world(false));
    tool.meta = Some(always_load());
    tool
}

/// `approve`: Claude Code's permission prompt tool, answered by the person in Beckon.
pub fn approve_tool() -> Tool {
    let schema = json!({
        "type": "object",
        "required": ["tool_name", "input"],
        "properties": {
            "tool_name": {"type": "string", "description": "The tool that wants to run."},
            "input": {"type": "object", "description": "Its input."},
            "tool_use_id": {"type": "string", "description": "The call's id."},
        }
    });
    let mut tool = Tool::new(
        APPROVE,
        format!(
            "Asks the person, in Beckon, whether a tool call may run (for claude -p \
             --permission-prompt-tool mcp__beckon__approve). Returns {{\"behavior\": \"allow\", \"updatedInput\": \
             {{…}}}} or {{\"behavior\": \"deny\", \"message\": \"…\"}}; a call nobody answers within {} s is denied.",
            APPROVE_WAIT.as_secs()
        ),
        object(schema),
    )
    .with_title("Ask the person to approve a tool call")
    .with_annotations(ToolAnnotations::new().read_only(false).destructive(false).open_world(false));
    tool.meta = Some(always_load());
    tool
}

/// Reads `approve`'s arguments into the approval put to the person.
pub fn read_approve(arguments: Option<JsonObject>) -> Result<QuestionRequest, Problems> {
    let mut arguments = arguments.unwrap_or_default();
    // Claude Code names the call; Beckon's own id names the question.
    arguments.remove("tool_use_id");
    let approval = json!({"tool_name": arguments.remove("tool_name"), "input": arguments.remove("input")});
    let mut problems = Problems::new();
    for unknown in arguments.keys() {
        problems.push(unknown.as_str(), "unknown field; allowed: tool_name, input, tool_use_id");
    }
    let approval = match beckon_core::Approval::parse(&strip_nulls(approval), "") {
        Ok(approval) => Some(approval),
        Err(found) => {
            problems.extend(found);
            None
        }
    };
    match approval {
        Some(approval) if problems.is_empty() => Ok(QuestionRequest::for_approval(approval)),
        _ => Err(problems),
    }
}

fn strip_nulls(mut value: Value) -> Value {
    if let Value::Object(map) = &mut value {
        map.retain(|_, field| !field.is_null());
    }
    value
}

/// Checked arguments of `ask_user_question`.
#[derive(Debug, Clone)]
pub struct AskArgs {
    /// What to ask.
    pub request: QuestionRequest,
    /// How long this call waits.
    pub wait: Duration,
}

/// Checked arguments of `get_answer`.
#[derive(Debug, Clone, Copy)]
pub struct GetAnswerArgs {
    /// Which question.
    pub request_id: RequestId,
    /// How long this call waits.
    pub wait: Duration,
}

fn read_wait(arguments: &mut Map<String, Value>, problems: &mut Problems) -> Duration {
    match arguments.remove("wait_seconds") {
        None | Some(Value::Null) => DEFAULT_WAIT,
        Some(value) => match value.as_f64() {
            Some(seconds) if seconds.is_finite() && (0.0..=MAX_WAIT_SECONDS as f64).contains(&seconds) => {
                Duration::from_secs_f64(seconds)
            }
            _ => {
                problems.push(
                    "wait_seconds",
                    format!("must be a number of seconds from 0 to {MAX_WAIT_SECONDS}, not {value}"),
                );
                DEFAULT_WAIT
            }
        },
    }
}

/// Reads `ask_user_question`'s arguments, reporting every problem with its path.
pub fn read_ask(arguments: Option<JsonObject>) -> Result<AskArgs, Problems> {
    let mut arguments = arguments.unwrap_or_default();
    let mut problems = Problems::new();
    let wait = read_wait(&mut arguments, &mut problems);
    // The rest is exactly a question request; its reader reports unknown fields too.
    match QuestionRequest::parse(&Value::Object(arguments)) {
        Ok(request) if problems.is_empty() => Ok(AskArgs { request, wait }),
        Ok(_) => Err(problems),
        Err(found) => {
            for problem in &found {
                problems.push(problem.path.clone(), problem.message.clone());
            }
            Err(problems)
        }
    }
}

/// Reads `get_answer`'s arguments, reporting every problem with its path.
pub fn read_get_answer(arguments: Option<JsonObject>) -> Result<GetAnswerArgs, Problems> {
    let mut arguments = arguments.unwrap_or_default();
    let mut problems = Problems::new();
    let wait = read_wait(&mut arguments, &mut problems);
    let request_id = match arguments.remove("request_id") {
        Some(Value::String(text)) => match RequestId::parse(text.trim()) {
            Ok(id) => Some(id),
            Err(_) => {
                problems.push("request_id", "is not a request id; pass the request_id from a pending result");
                None
            }
        },
        None | Some(Value::Null) => {
            problems.push("request_id", "is required: the request_id from a pending ask_user_question result");
            None
        }
        Some(_) => {
            problems.push("request_id", "must be a string");
            None
        }
    };
    for unknown in arguments.keys() {
        problems.push(unknown.as_str(), "unknown field; allowed: request_id, wait_seconds");
    }
    match request_id {
        Some(request_id) if problems.is_empty() => Ok(GetAnswerArgs { request_id, wait }),
        _ => Err(problems),
    }
}

/// The tool error for invalid `get_answer` arguments.
pub fn get_answer_error_text(problems: &Problems) -> String {
    let mut text = String::from("get_answer's input is invalid. Fix these problems and call it again:");
    for problem in problems {
        text.push_str("\n- ");
        text.push_str(&problem.to_string());
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(value: Value) -> Option<JsonObject> {
        value.as_object().cloned()
    }

    #[test]
    fn the_ask_schema_is_claude_codes_plus_an_optional_wait() {
        let tool = ask_tool();
        let spec = beckon_runtime::tools::ask_user_question_spec();
        assert_eq!(tool.input_schema["properties"]["questions"], spec.input_schema["properties"]["questions"]);
        assert_eq!(tool.input_schema["required"], json!(["questions"]));
        assert_eq!(tool.input_schema["properties"]["wait_seconds"]["maximum"], json!(110), "under Claude Code's 120 s");
        assert_eq!(tool.input_schema["properties"]["wait_seconds"]["default"], json!(50));
        assert!(tool.description.unwrap().starts_with(&spec.description));
    }

    #[test]
    fn both_tools_ask_claude_code_to_load_them_without_tool_search() {
        for tool in [ask_tool(), get_answer_tool()] {
            let listed = serde_json::to_value(&tool).unwrap();
            assert_eq!(listed["_meta"], json!({"anthropic/alwaysLoad": true}), "{}", tool.name);
        }
    }

    #[test]
    fn ask_arguments_are_read_with_every_problem_at_its_path() {
        let good = json!({"questions": [{"question": "Go?", "header": "Go", "multiSelect": false,
            "options": [{"label": "Yes", "description": "y"}, {"label": "No", "description": "n"}]}]});
        let read = read_ask(args(good.clone())).unwrap();
        assert_eq!((read.request.items().len(), read.wait), (1, DEFAULT_WAIT));
        let mut slow = good;
        slow["wait_seconds"] = json!(2.5);
        assert_eq!(read_ask(args(slow)).unwrap().wait, Duration::from_millis(2500));
        let bad = json!({"questions": [{"question": "Go?", "header": "A header far too long",
            "options": [{"label": "Yes"}]}], "wait_seconds": 111, "colour": "red"});
        let paths: Vec<String> = read_ask(args(bad)).unwrap_err().iter().map(|p| p.path.clone()).collect();
        assert_eq!(paths, ["wait_seconds", "colour", "questions[0].header", "questions[0].options"]);
        assert_eq!(read_ask(None).unwrap_err().iter().next().unwrap().path, "questions");
    }

    #[test]
    fn get_answer_needs_a_request_id() {
        let id = "0190f1d2-0000-7000-8000-00000000beef";
        let read = read_get_answer(args(json!({"request_id": id, "wait_seconds": 0}))).unwrap();
        assert_eq!((read.request_id.to_string().as_str(), read.wait), (id, Duration::ZERO));
        let err = read_get_answer(args(json!({"request_id": "nope", "extra": 1}))).unwrap_err();
        let text = get_answer_error_text(&err);
        assert!(text.contains("request_id: is not a request id") && text.contains("extra: unknown field"), "{text}");
        assert!(read_get_answer(None).is_err());
    }
}
