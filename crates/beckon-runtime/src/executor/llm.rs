//! Turning a session's timeline into the request a provider gets.

use beckon_core::conversation::Message;

use crate::providers::{Block, Turn};

/// The conversation as providers see it: user and assistant turns, consecutive blocks of the
/// same role grouped; questions and answers are timeline-only (the answer already reached the
/// model as its tool result).
pub(crate) fn turns(conversation: &[Message]) -> Vec<Turn> {
    let mut turns: Vec<Turn> = Vec::new();
    for message in conversation {
        let (user, block) = match message {
            Message::User { text } => (true, Block::Text(text.clone())),
            Message::ToolResult { result } => (true, Block::ToolResult(result.clone())),
            Message::Assistant { text } => (false, Block::Text(text.clone())),
            Message::ToolUse { call } => (false, Block::ToolUse(call.clone())),
            Message::Question { .. } | Message::Answer { .. } => continue,
        };
        match (turns.last_mut(), user) {
            (Some(Turn::User(blocks)), true) | (Some(Turn::Assistant(blocks)), false) => blocks.push(block),
            (_, true) => turns.push(Turn::User(vec![block])),
            (_, false) => turns.push(Turn::Assistant(vec![block])),
        }
    }
    turns
}

/// The model's replies since the person last spoke (or the payload or task that began the
/// run): what an agent's `max_turns` counts. Tool results come back in user turns too, so a
/// user turn counts as the person's only when it carries text.
pub(crate) fn replies_since_person(turns: &[Turn]) -> usize {
    turns
        .iter()
        .rev()
        .take_while(|turn| match turn {
            Turn::User(blocks) => !blocks.iter().any(|block| matches!(block, Block::Text(_))),
            Turn::Assistant(_) => true,
        })
        .filter(|turn| matches!(turn, Turn::Assistant(_)))
        .count()
}

#[cfg(test)]
mod tests {
    use beckon_core::conversation::{ToolCall, ToolResult};
    use serde_json::json;

    use super::*;

    #[test]
    fn replies_are_counted_from_the_persons_last_words() {
        let said = |text: &str| Turn::User(vec![Block::Text(text.into())]);
        let reply = || Turn::Assistant(vec![Block::Text("ok".into())]);
        let result = || Turn::User(vec![Block::ToolResult(ToolResult::ok("t", "done"))]);
        assert_eq!(replies_since_person(&[]), 0);
        assert_eq!(replies_since_person(&[said("go")]), 0);
        assert_eq!(replies_since_person(&[said("go"), reply(), result(), reply(), result()]), 2);
        assert_eq!(replies_since_person(&[said("go"), reply(), result(), reply(), said("again")]), 0);
        assert_eq!(replies_since_person(&[said("go"), reply(), said("again"), reply(), result()]), 1);
    }

    #[test]
    fn blocks_group_by_role_and_questions_stay_out() {
        let call = ToolCall { id: "t1".into(), name: "ask_user_question".into(), input: json!({}) };
        let request = beckon_core::QuestionRequest::parse(
            &json!({"questions": [{"question": "Q?", "options": [{"label": "A"}, {"label": "B"}]}]}),
        )
        .unwrap();
        let timeline = vec![
            Message::User { text: "hi".into() },
            Message::Assistant { text: "asking".into() },
            Message::ToolUse { call: call.clone() },
            Message::Question {
                request_id: "0190f1d2-0000-7000-8000-000000000001".parse().unwrap(),
                tool_use_id: "t1".into(),
                origin: beckon_core::conversation::Origin::agent("a"),
                request,
            },
            Message::ToolResult { result: ToolResult::ok("t1", "{}") },
        ];
        assert_eq!(
            turns(&timeline),
            vec![
                Turn::User(vec![Block::Text("hi".into())]),
                Turn::Assistant(vec![Block::Text("asking".into()), Block::ToolUse(call)]),
                Turn::User(vec![Block::ToolResult(ToolResult::ok("t1", "{}"))]),
            ]
        );
    }
}
