//! Text as Slack shows it: agent-written text escaped for mrkdwn, and every text cut to the
//! length its Block Kit field allows (Slack refuses a whole message for one field too long).

use serde_json::{Value, json};

/// Longest text in a section or context element.
pub(super) const SECTION_MAX_CHARS: usize = 3000;
/// Longest button label and option text.
pub(super) const LABEL_MAX_CHARS: usize = 75;
/// Longest message fallback text (notifications show far less).
pub(super) const FALLBACK_MAX_CHARS: usize = 3000;

/// `text` as Slack shows it literally in mrkdwn: `&`, `<` and `>` as Slack documents, so
/// `<!channel>` or `<https://…|label>` from an agent is text, not a mention or a link.
pub(super) fn escape(text: &str) -> String {
    text.chars().map(entity).collect()
}

/// One character as mrkdwn shows it literally.
fn entity(c: char) -> std::borrow::Cow<'static, str> {
    match c {
        '&' => "&amp;".into(),
        '<' => "&lt;".into(),
        '>' => "&gt;".into(),
        c => c.to_string().into(),
    }
}

/// `text` cut to `max` characters, an ellipsis marking the cut.
pub(super) fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Agent text escaped, cut so the escaped form fits `max` characters without splitting an
/// entity (escaping lengthens text, so the cut is counted on the escaped form).
pub(super) fn escaped(text: &str, max: usize) -> String {
    let whole = escape(text);
    if whole.chars().count() <= max {
        return whole;
    }
    let room = max.saturating_sub(1);
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let piece = entity(c);
        let len = piece.chars().count();
        if used + len > room {
            break;
        }
        out.push_str(&piece);
        used += len;
    }
    out.push('…');
    out
}

/// A mrkdwn text object.
pub(super) fn mrkdwn(text: String) -> Value {
    json!({"type": "mrkdwn", "text": text})
}

/// A plain_text object; Slack shows it as is (no escaping needed), cut to `max`.
pub(super) fn plain(text: &str, max: usize) -> Value {
    json!({"type": "plain_text", "text": cut(text, max), "emoji": true})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_sequences_are_escaped() {
        assert_eq!(escape("<!channel> & <@U1>"), "&lt;!channel&gt; &amp; &lt;@U1&gt;");
    }

    #[test]
    fn cutting_counts_characters_and_marks_the_cut() {
        assert_eq!(cut("héllo", 5), "héllo");
        assert_eq!(cut("héllo wörld", 5), "héll…");
    }

    #[test]
    fn escaped_text_fits_its_field_without_splitting_an_entity() {
        let text = "<".repeat(100);
        let out = escaped(&text, 75);
        assert!(out.chars().count() <= 75, "{out}");
        assert!(out.trim_end_matches('…').ends_with("&lt;"), "{out}");
    }
}
