//! What commands print: answers for scripts on stdout, notes for people on stderr, and the
//! pending table.

use beckon_api::QuestionStatus;
use beckon_api::views::QuestionView;
use beckon_core::Outcome;
use serde_json::Value;

use crate::error::Exit;

/// How a resolved question is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// The answer text on stdout, one line per question; notes on stderr.
    Answer,
    /// The whole question view as JSON.
    View,
    /// The result an agent gets, as JSON: Claude Code's AskUserQuestion result plus outcome.
    Result,
}

/// Prints a resolved question (a gateway question view) as `shown` says, and says how the
/// command exits.
pub fn resolution(view: &QuestionView, shown: Shown) -> Exit {
    let exit = match view.status {
        QuestionStatus::Answered => Exit::Success,
        QuestionStatus::Declined => Exit::Declined,
        QuestionStatus::Expired => Exit::Expired,
        QuestionStatus::Cancelled => Exit::Cancelled,
        QuestionStatus::Pending => Exit::Failed,
    };
    match shown {
        Shown::View => {
            println!("{}", serde_json::to_string_pretty(view).unwrap_or_default());
            return exit;
        }
        Shown::Result => {
            println!("{}", serde_json::to_string_pretty(&view.result).unwrap_or_default());
            return exit;
        }
        Shown::Answer => {}
    }
    // The result the agent receives, as Claude Code's AskUserQuestion returns it.
    let result = view.result.as_ref().unwrap_or(&Value::Null);
    if let Some(answers) = result["answers"].as_object() {
        for line in answer_lines(answers) {
            println!("{line}");
        }
    }
    if let Some(annotations) = result["annotations"].as_object() {
        for notes in annotations.values().filter_map(|annotation| annotation["notes"].as_str()) {
            eprintln!("Comment: {notes}");
        }
    }
    let reason = match &view.outcome {
        Some(Outcome::Declined { reason } | Outcome::Cancelled { reason }) => reason.as_deref(),
        Some(Outcome::Answered { .. } | Outcome::Expired { .. }) | None => None,
    };
    let reason = reason.map(|r| format!(": {r}")).unwrap_or_default();
    match exit {
        Exit::Declined => eprintln!("The person declined to answer{reason}"),
        Exit::Expired if result["answers"].is_object() => {
            eprintln!("Nobody answered in time; the default answer was used")
        }
        Exit::Expired => eprintln!("Nobody answered before the deadline"),
        Exit::Cancelled => eprintln!("The question was cancelled{reason}"),
        Exit::Failed => eprintln!("The question is still {}", view.status),
        Exit::Success | Exit::Interrupted | Exit::HandedOver(_) => {}
    }
    exit
}

/// The answer text, one line per question: just the answer for one question, else
/// `question → answer`.
fn answer_lines(answers: &serde_json::Map<String, Value>) -> Vec<String> {
    let text = |value: &Value| match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    if answers.len() == 1 {
        return answers.values().map(text).collect();
    }
    answers.iter().map(|(question, answer)| format!("{question} → {}", text(answer))).collect()
}

/// A short age: `45s`, `12m`, `3h`, `2d`.
pub fn age(ms: i64) -> String {
    let seconds = (ms / 1000).max(0);
    match seconds {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s if s < 86_400 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}

/// Cuts `text` to `max` characters, marking the cut.
fn clip(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let mut out: String = flat.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// The pending questions as a table: id, who asks, how long it has waited, what it asks.
pub fn pending_table(questions: &[QuestionView], now_ms: i64) -> String {
    let header = ["ID", "FROM", "WAITING", "QUESTION"].map(String::from);
    let mut rows = vec![header];
    for question in questions {
        let items = question.input.items();
        let asked = match items.first() {
            Some(first) => match first.header() {
                Some(header) => format!("[{header}] {}", first.question()),
                None => first.question().to_owned(),
            },
            None => String::new(),
        };
        let more = if items.len() > 1 { format!(" (+{} more)", items.len() - 1) } else { String::new() };
        let origin = if question.origin.is_empty() { &question.agent } else { &question.origin };
        rows.push([
            question.request_id.to_string(),
            clip(origin, 30),
            age(now_ms - question.created_at),
            format!("{}{more}", clip(&asked, 70)),
        ]);
    }
    let widths: Vec<usize> =
        (0..4).map(|column| rows.iter().map(|row| row[column].chars().count()).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for row in &rows {
        let line: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (cell, width))| if i == 3 { cell.clone() } else { format!("{cell:<width$}") })
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ages_are_short() {
        assert_eq!([age(5_000), age(125_000), age(7_300_000), age(200_000_000)], ["5s", "2m", "2h", "2d"]);
    }

    #[test]
    fn one_answer_prints_alone_and_several_name_their_question() {
        let one = json!({"Deploy?": "A, B"});
        assert_eq!(answer_lines(one.as_object().unwrap()), ["A, B"]);
        let two = json!({"Deploy?": "Yes", "How many?": 3});
        assert_eq!(answer_lines(two.as_object().unwrap()), ["Deploy? → Yes", "How many? → 3"]);
    }

    #[test]
    fn the_table_lines_up_and_clips_long_questions() {
        let question = json!({"request_id": "0190f1d2-0000-7000-8000-00000000beef",
            "session_id": "0190f1d2-0000-7000-8000-00000000cafe", "agent": "ci-bot", "origin": "ci-bot",
            "status": "pending", "created_at": 1_000, "answer_url": "", "deep_link": "",
            "input": {"questions": [
                {"question": "Deploy?\nReally?", "header": "Deploy", "options": [{"label": "Yes"}, {"label": "No"}]},
                {"question": "x".repeat(100), "schema": {"type": "string"}}]}});
        let question: QuestionView = serde_json::from_value(question).unwrap();
        let table = pending_table(&[question], 61_000);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines[0], "ID                                    FROM    WAITING  QUESTION");
        assert_eq!(
            lines[1],
            "0190f1d2-0000-7000-8000-00000000beef  ci-bot  1m       [Deploy] Deploy? Really? (+1 more)"
        );
    }
}
