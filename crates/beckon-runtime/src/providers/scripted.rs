//! A deterministic provider that plays a script of assistant turns: the offline demo agent
//! runs on it, and so can tests. It reads the conversation it is given, so it can branch on
//! the answers it receives and quote them.
//!
//! ```json
//! {"turns": [
//!   {"text": "Let me ask.", "tool_calls": [{"name": "ask_user_question", "input": {…}}]},
//!   {"branch": "{{answer:0}}", "cases": {"Haiku": {…turn…}}, "default": {…turn…}},
//!   {"text": "Done: {{answer:0|lower}} about {{message|topic}}."}
//! ]}
//! ```
//!
//! The turn played is the number of assistant turns since the person's last message, so each
//! new message starts the script again. Strings may use `{{message}}` (the person's last
//! message), `{{answer:N}}` (the N-th answer of the latest `ask_user_question` result, empty
//! when it carries none), `{{outcome}}` (that result's outcome), with filters `|lower`,
//! `|slug` and `|topic` (the subject of "write a poem about X").

use std::collections::BTreeMap;

use beckon_core::conversation::{ASK_USER_QUESTION, ToolCall};
use serde::Deserialize;
use serde_json::Value;

use super::{Block, Completion, LlmReply, LlmRequest, Provider, TextSink, Turn};

/// A parsed script.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    turns: Vec<Step>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
enum Step {
    Branch {
        branch: String,
        cases: BTreeMap<String, Step>,
        default: Box<Step>,
    },
    Turn {
        #[serde(default)]
        text: String,
        #[serde(default)]
        tool_calls: Vec<ScriptedCall>,
    },
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptedCall {
    name: String,
    #[serde(default)]
    input: Value,
}

impl Script {
    /// Reads a script from its JSON text.
    pub fn parse(text: &str) -> Result<Script, String> {
        let script: Script = serde_json::from_str(text).map_err(|err| format!("the script is not valid: {err}"))?;
        if script.turns.is_empty() {
            return Err("the script has no turns".into());
        }
        Ok(script)
    }
}

/// The scripted provider.
#[derive(Debug, Clone)]
pub struct Scripted {
    script: Script,
}

impl Scripted {
    /// A provider playing `script`.
    pub fn new(script: Script) -> Self {
        Scripted { script }
    }

    /// The reply to `request`, without I/O.
    pub fn reply(&self, request: &LlmRequest) -> LlmReply {
        let context = Context::of(request);
        let Some(step) = self.script.turns.get(context.turn) else { return LlmReply::default() };
        let (text, calls) = context.play(step);
        let tool_calls = calls
            .into_iter()
            .enumerate()
            .map(|(k, call)| ToolCall {
                id: format!("toolu_script_{}_{k}", context.assistant_turns),
                name: call.name.clone(),
                input: context.fill_value(&call.input),
            })
            .collect();
        LlmReply { text, tool_calls }
    }
}

impl Provider for Scripted {
    fn complete<'a>(&'a self, request: &'a LlmRequest, sink: &'a dyn TextSink) -> Completion<'a> {
        Box::pin(async move {
            let reply = self.reply(request);
            if !reply.text.is_empty() {
                sink.text(&reply.text);
            }
            Ok(reply)
        })
    }
}

/// What the script can see of the conversation.
struct Context {
    /// Which script turn to play.
    turn: usize,
    /// Assistant turns in the whole conversation (for unique tool call ids).
    assistant_turns: usize,
    message: String,
    outcome: String,
    answers: Vec<String>,
}

impl Context {
    fn of(request: &LlmRequest) -> Context {
        let mut context = Context {
            turn: 0,
            assistant_turns: 0,
            message: String::new(),
            outcome: String::new(),
            answers: Vec::new(),
        };
        let mut ask_ids: Vec<&str> = Vec::new();
        for turn in &request.turns {
            match turn {
                Turn::Assistant(blocks) => {
                    context.turn += 1;
                    context.assistant_turns += 1;
                    for block in blocks {
                        if let Block::ToolUse(call) = block
                            && call.name == ASK_USER_QUESTION
                        {
                            ask_ids.push(&call.id);
                        }
                    }
                }
                Turn::User(blocks) => {
                    for block in blocks {
                        match block {
                            Block::Text(text) => {
                                context.message = text.trim().to_owned();
                                context.turn = 0;
                            }
                            Block::ToolResult(result) if ask_ids.contains(&result.tool_use_id.as_str()) => {
                                context.read_result(&result.content);
                            }
                            Block::ToolResult(_) | Block::ToolUse(_) => {}
                        }
                    }
                }
            }
        }
        context
    }

    fn read_result(&mut self, content: &str) {
        let value: Value = serde_json::from_str(content).unwrap_or(Value::Null);
        self.outcome = value["outcome"].as_str().unwrap_or("error").to_owned();
        self.answers = match value["answers"].as_object() {
            // Answers are keyed by question text in the order asked (an expiry may carry the
            // agent's default answer).
            Some(answers) => answers
                .values()
                .map(|v| match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect(),
            _ => Vec::new(),
        };
    }

    fn play<'s>(&self, step: &'s Step) -> (String, Vec<&'s ScriptedCall>) {
        match step {
            Step::Branch { branch, cases, default } => {
                let key = self.fill(branch);
                self.play(cases.get(&key).unwrap_or(default))
            }
            Step::Turn { text, tool_calls } => (self.fill(text), tool_calls.iter().collect()),
        }
    }

    fn fill_value(&self, value: &Value) -> Value {
        match value {
            Value::String(text) => Value::String(self.fill(text)),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.fill_value(v)).collect()),
            Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), self.fill_value(v))).collect()),
            other => other.clone(),
        }
    }

    /// Replaces every `{{…}}` in `text`.
    fn fill(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find("{{") {
            out.push_str(&rest[..start]);
            let Some(end) = rest[start..].find("}}") else {
                out.push_str(&rest[start..]);
                return out;
            };
            out.push_str(&self.expand(&rest[start + 2..start + end]));
            rest = &rest[start + end + 2..];
        }
        out.push_str(rest);
        out
    }

    fn expand(&self, expression: &str) -> String {
        let mut parts = expression.split('|').map(str::trim);
        let mut value = match parts.next().unwrap_or_default() {
            "message" => self.message.clone(),
            "outcome" => self.outcome.clone(),
            other => match other.strip_prefix("answer:").and_then(|n| n.parse::<usize>().ok()) {
                Some(n) => self.answers.get(n).cloned().unwrap_or_default(),
                None => String::new(),
            },
        };
        for filter in parts {
            value = match filter {
                "lower" => value.to_lowercase(),
                "slug" => slug(&value),
                "topic" => topic(&value),
                _ => value,
            };
        }
        value
    }
}

/// Lower-case letters and digits joined by `-`, at most 40 characters.
fn slug(text: &str) -> String {
    let mut slug = String::new();
    for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        if slug.len() + word.len() > 40 {
            break;
        }
        if !slug.is_empty() {
            slug.push('-');
        }
        slug.extend(word.chars().flat_map(char::to_lowercase));
    }
    if slug.is_empty() { "untitled".into() } else { slug }
}

/// The subject of a request such as "Write me a poem about the sea." → "the sea".
fn topic(text: &str) -> String {
    let lower = text.to_lowercase();
    let subject = [" about ", " on ", " of ", " for "]
        .iter()
        .filter_map(|marker| lower.find(marker).map(|at| at + marker.len()))
        .min()
        .map_or(text, |at| &text[at..]);
    let subject = subject.trim().trim_end_matches(['.', '!', '?']).trim();
    if subject.is_empty() { text.trim().to_owned() } else { subject.to_owned() }
}

#[cfg(test)]
mod tests {
    use beckon_core::conversation::ToolResult;
    use serde_json::json;

    use super::*;

    fn script() -> Scripted {
        Scripted::new(
            Script::parse(
                &json!({"turns": [
                    {"text": "Asking.", "tool_calls": [{"name": "ask_user_question", "input": {"q": "{{message|topic}}"}}]},
                    {"branch": "{{answer:0}}", "cases": {"Haiku": {"text": "short {{answer:1|lower}}"}}, "default": {"text": "long ({{outcome}})"}}
                ]})
                .to_string(),
            )
            .unwrap(),
        )
    }

    fn request(turns: Vec<Turn>) -> LlmRequest {
        LlmRequest { model: "script".into(), system: String::new(), turns, tools: vec![], max_tokens: 100 }
    }

    fn user(text: &str) -> Turn {
        Turn::User(vec![Block::Text(text.into())])
    }

    #[test]
    fn the_first_turn_asks_with_templated_input() {
        let reply = script().reply(&request(vec![user("Write a poem about the sea.")]));
        assert_eq!(reply.text, "Asking.");
        assert_eq!(reply.tool_calls[0].name, "ask_user_question");
        assert_eq!(reply.tool_calls[0].input, json!({"q": "the sea"}));
        assert_eq!(reply.tool_calls[0].id, "toolu_script_0_0");
    }

    fn after_answer(content: Value) -> LlmRequest {
        let call = ToolCall { id: "toolu_script_0_0".into(), name: ASK_USER_QUESTION.into(), input: json!({}) };
        request(vec![
            user("a poem about rain"),
            Turn::Assistant(vec![Block::Text("Asking.".into()), Block::ToolUse(call)]),
            Turn::User(vec![Block::ToolResult(ToolResult::ok("toolu_script_0_0", content.to_string()))]),
        ])
    }

    #[test]
    fn it_branches_on_the_answers() {
        let answered =
            json!({"outcome": "answered", "questions": [], "answers": {"Style?": "Haiku", "Tone?": "Warm, Wry"}});
        assert_eq!(script().reply(&after_answer(answered)).text, "short warm, wry");
        let declined = json!({"outcome": "declined", "message": "…"});
        assert_eq!(script().reply(&after_answer(declined)).text, "long (declined)");
    }

    #[test]
    fn past_the_end_it_says_nothing_and_a_new_message_starts_again() {
        let mut turns = after_answer(json!({"outcome": "expired"})).turns;
        turns.push(Turn::Assistant(vec![Block::Text("long".into())]));
        assert_eq!(script().reply(&request(turns.clone())), LlmReply::default());
        turns.push(user("another about snow"));
        let reply = script().reply(&request(turns));
        assert_eq!(reply.tool_calls[0].input, json!({"q": "snow"}));
        assert_eq!(reply.tool_calls[0].id, "toolu_script_2_0", "ids stay unique across the session");
    }

    #[test]
    fn filters() {
        assert_eq!(slug("The Sea, at Night!"), "the-sea-at-night");
        assert_eq!(slug("???"), "untitled");
        assert_eq!(topic("Write me a poem about the old harbour."), "the old harbour");
        assert_eq!(topic("autumn"), "autumn");
    }

    #[test]
    fn bad_scripts_are_refused() {
        assert!(Script::parse("{}").is_err());
        assert!(Script::parse(r#"{"turns": []}"#).unwrap_err().contains("no turns"));
        assert!(Script::parse(r#"{"turns": [{"text": 5}]}"#).is_err());
    }
}
