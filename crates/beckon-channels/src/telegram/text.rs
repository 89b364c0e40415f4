//! The words of Beckon's Telegram messages: a question as posted and as settled, and the short
//! messages around them.
//!
//! Every message is sent as plain text (no parse mode), so an agent's words show exactly as
//! written: nothing in them can format, link or hide anything. Texts are cut to Telegram's
//! limit, counted as Telegram counts (UTF-16 code units), keeping the closing line whole.

use beckon_core::{AnsweredVia, QuestionItem, QuestionRequest};
use beckon_store::QuestionStatus;

use super::form::Form;
use crate::channel::{Posting, Settled};

/// The longest message text Telegram takes, in UTF-16 code units.
pub(super) const MESSAGE_MAX_UNITS: usize = 4096;
/// The most of an approval's preview (the command, the edit) a message shows, in characters.
const PREVIEW_MAX_CHARS: usize = 1500;
/// The most of a question a reply prompt repeats, in characters.
const PROMPT_QUESTION_MAX_CHARS: usize = 200;
/// The longest notice a callback query's answer shows, in characters.
const NOTICE_MAX_CHARS: usize = 200;

/// Whether the message shows `posting` whole: an approval's call uncut, and the whole text
/// within Telegram's limit. An approval shown cut offers no Allow.
pub(super) fn shows_whole(posting: &Posting) -> bool {
    let preview_whole =
        posting.request.approval().is_none_or(|approval| approval.preview().chars().count() <= PREVIEW_MAX_CHARS);
    preview_whole && body(posting).encode_utf16().count() + NOTE_MAX_UNITS <= MESSAGE_MAX_UNITS
}

/// Room kept for the closing note of a question's message, in UTF-16 code units.
const NOTE_MAX_UNITS: usize = 200;

/// The text of `posting`'s message: who asks, what, and how to answer here.
pub(super) fn question(posting: &Posting) -> String {
    let note = match Form::of(&posting.request) {
        Form::Buttons if posting.request.approval().is_some() && !shows_whole(posting) => {
            "This call is too long to show here in full, so it cannot be allowed here: open Beckon to read it whole, or Deny."
        }
        Form::Buttons => "Choose an answer below.",
        Form::Toggles { items: 1 } => "Choose one or more, then Submit.",
        Form::Toggles { .. } => "Choose an answer to each question, then Submit.",
        Form::Written => "Reply to this message with your answer.",
        Form::InBeckon => "Some of these need a written answer: answer in Beckon, or Skip.",
    };
    fit(&body(posting), &format!("\n\n{note}"))
}

/// The text of `posting`'s message once its question ended: the question, then how it ended.
pub(super) fn settled(posting: &Posting, settled: &Settled) -> String {
    let outcome = match settled.status {
        QuestionStatus::Pending => "Pending",
        QuestionStatus::Answered => "Answered",
        QuestionStatus::Declined => "Declined",
        QuestionStatus::Expired => "Expired",
        QuestionStatus::Cancelled => "Cancelled",
    };
    let mut line = format!("{outcome}: {}", settled.summary);
    if let Some(by) = &settled.by {
        line.push_str(&format!(" — by {by}"));
    }
    if let Some(via) = settled.via {
        line.push_str(&format!(" via {}", via_name(via)));
    }
    fit(&body(posting), &format!("\n\n{}", plain(&line)))
}

/// The prompt that opens a reply field for a written answer.
pub(super) fn prompt(question: Option<&str>) -> String {
    match question {
        Some(question) => {
            format!("Reply with your answer to: {}", cut_chars(&plain(question), PROMPT_QUESTION_MAX_CHARS))
        }
        None => "Reply with your answer.".to_owned(),
    }
}

/// The text a reply prompt repeats: the question of a one-question request.
pub(super) fn prompt_question(request: &QuestionRequest) -> Option<String> {
    match request.items() {
        [item] => Some(cut_chars(item.question(), PROMPT_QUESTION_MAX_CHARS)),
        _ => None,
    }
}

/// A callback query's notice: Telegram shows at most 200 characters.
pub(super) fn notice(text: &str) -> String {
    cut_chars(&plain(text), NOTICE_MAX_CHARS)
}

/// A short reply to a person's message.
pub(super) fn reply(text: &str) -> String {
    fit(&plain(text), "")
}

/// The message a pairing is confirmed with.
pub(super) const PAIRED: &str =
    "Paired with Beckon. Questions from your agents will arrive here: answer with the buttons, or by replying.";

/// Who asks and what: the part of a question's message that stays once it is settled.
fn body(posting: &Posting) -> String {
    let request = &posting.request;
    let mut text = format!("{} asks", posting.asker);
    match request.items() {
        [item] => {
            text.push_str("\n\n");
            if let Some(header) = item.header() {
                text.push_str(&format!("{header}\n"));
            }
            text.push_str(item.question());
            text.push_str(&options(item, ""));
        }
        items => {
            for (n, item) in items.iter().enumerate() {
                let header = item.header().map(|header| format!("{header} — ")).unwrap_or_default();
                text.push_str(&format!("\n\n{}. {header}{}", n + 1, item.question()));
                text.push_str(&options(item, "   "));
            }
        }
    }
    if let Some(approval) = request.approval() {
        text.push_str("\n\n");
        text.push_str(&cut_chars(&approval.preview(), PREVIEW_MAX_CHARS));
    }
    plain(&text)
}

/// An item's options as lines, when any of them says more than its label (the buttons show
/// the labels).
fn options(item: &QuestionItem, indent: &str) -> String {
    let QuestionItem::Choice(choice) = item else { return String::new() };
    if choice.options.iter().all(|option| option.description.is_none()) {
        return String::new();
    }
    let mut text = String::from("\n");
    for option in &choice.options {
        text.push_str(&format!("\n{indent}• {}", option.label));
        if let Some(description) = &option.description {
            text.push_str(&format!(" — {description}"));
        }
    }
    text
}

fn via_name(via: AnsweredVia) -> &'static str {
    match via {
        AnsweredVia::Window => "the Beckon window",
        AnsweredVia::Notification => "a notification",
        AnsweredVia::Tray => "the tray",
        AnsweredVia::DeepLink => "a Beckon link",
        AnsweredVia::Http => "HTTP",
        AnsweredVia::Mcp => "MCP",
        AnsweredVia::Cli => "the command line",
        AnsweredVia::Slack => "Slack",
        AnsweredVia::Telegram => "Telegram",
        AnsweredVia::Rule => "a rule",
    }
}

/// `text` with line breaks as `\n` and no other control characters, as Telegram keeps it.
fn plain(text: &str) -> String {
    text.replace("\r\n", "\n").chars().filter(|c| *c == '\n' || *c == '\t' || !c.is_control()).collect()
}

/// `head` cut so that `head` + `tail` fits a message; `tail` is kept whole.
fn fit(head: &str, tail: &str) -> String {
    let tail_units: usize = tail.encode_utf16().count();
    let room = MESSAGE_MAX_UNITS.saturating_sub(tail_units);
    if head.encode_utf16().count() <= room {
        return format!("{head}{tail}");
    }
    let mut kept = String::new();
    let mut units = 0;
    for c in head.chars() {
        // One unit stays for the ellipsis.
        if units + c.len_utf16() > room.saturating_sub(1) {
            break;
        }
        units += c.len_utf16();
        kept.push(c);
    }
    format!("{kept}…{tail}")
}

fn cut_chars(text: &str, max: usize) -> String {
    if text.chars().count() > max {
        format!("{}…", text.chars().take(max.saturating_sub(1)).collect::<String>())
    } else {
        text.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use beckon_core::RequestId;
    use serde_json::json;

    use super::*;

    fn posting(question: &str) -> Posting {
        Posting {
            request_id: RequestId::parse("0190f1d2-7a3b-7c4d-8e5f-6a7b8c9d0e1f").unwrap(),
            asker: "research › summariser".into(),
            request: QuestionRequest::parse(&json!({"questions": [{
                "question": question, "header": "DB",
                "options": [{"label": "Postgres", "description": "<b>safe</b>"}, {"label": "SQLite"}]
            }]}))
            .unwrap(),
            created_at_ms: 0,
            to: None,
        }
    }

    #[test]
    fn a_question_reads_as_written() {
        let text = question(&posting("Use *bold* <i>or</i> [links](x)?"));
        assert_eq!(
            text,
            "research › summariser asks\n\nDB\nUse *bold* <i>or</i> [links](x)?\n\n• Postgres — <b>safe</b>\n• SQLite\n\nChoose an answer below."
        );
    }

    #[test]
    fn a_settled_question_says_how_it_ended() {
        let settled = Settled {
            status: QuestionStatus::Answered,
            summary: "Postgres".into(),
            via: Some(AnsweredVia::Telegram),
            by: Some("@ada".into()),
        };
        let text = super::settled(&posting("DB?"), &settled);
        assert!(text.ends_with("\n\nAnswered: Postgres — by @ada via Telegram"), "{text}");
        assert!(!text.contains("Choose"), "{text}");
    }

    #[test]
    fn long_texts_fit_telegram_and_keep_their_ending() {
        let text = fit(&"😀".repeat(3000), "\n\nExpired: nobody answered in time");
        // An emoji takes two units: the cut may leave one unit unused.
        assert!((MESSAGE_MAX_UNITS - 1..=MESSAGE_MAX_UNITS).contains(&text.encode_utf16().count()));
        assert!(text.ends_with("😀…\n\nExpired: nobody answered in time"), "{text}");
        assert_eq!(fit("short", "\n\nend"), "short\n\nend");
    }
}
