//! A notice about an agent's session: what a hook event changes about it, and the texts it
//! shows made to fit what Beckon takes.

use serde_json::Value;

/// The longest message a notice holds, in bytes (Beckon refuses a longer one).
pub(crate) const MESSAGE_MAX_BYTES: usize = 1024;
/// The longest project path a notice holds, in bytes (Beckon refuses a longer one).
pub(crate) const PROJECT_MAX_BYTES: usize = 4096;

/// What a hook event changes about the session's notice.
#[derive(Debug, Clone, PartialEq)]
pub enum NoticeChange {
    /// Show (or replace) the notice under `key`: the body of `PUT /v1/notices/{key}`.
    Post {
        /// The session's notice key.
        key: String,
        /// `agent`, `message` and `project`.
        body: Value,
    },
    /// The session went on: take its notice away.
    Clear {
        /// The session's notice key.
        key: String,
    },
}

/// `text` made fit to read at a glance and for a notice to hold: at most `max` bytes (cut at a
/// character, with "…"), control characters other than a line break and bidirectional
/// controls and marks written as escapes (`\u{202e}`), so the notice reads as what was sent
/// and cannot be reordered. Beckon refuses a notice with any of these characters, or longer
/// than it holds, and then the person is not told at all.
pub(crate) fn shown(text: &str, max: usize) -> String {
    const CUT: char = '…';
    let mut out = String::new();
    // How much of `out` stays when it must be cut: the most that leaves room for the "…".
    let mut kept = 0;
    for c in text.chars() {
        let hidden = (c.is_control() && c != '\n')
            || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}');
        let piece = if hidden { c.escape_unicode().to_string() } else { c.to_string() };
        if out.len() + piece.len() > max {
            out.truncate(kept);
            out.push(CUT);
            return out;
        }
        out.push_str(&piece);
        if out.len() + CUT.len_utf8() <= max {
            kept = out.len();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_is_shown_as_sent_and_cut_to_fit_with_its_ellipsis() {
        assert_eq!(shown("rm\t-rf x\u{202E}txt.exe\r\nls", 100), "rm\\u{9}-rf x\\u{202e}txt.exe\\u{d}\nls");
        assert_eq!(shown("abcdef", 6), "abcdef");
        assert_eq!(shown("abcdefg", 6), "abc…");
        for max in 3..40 {
            let cut = shown(&"é\u{7}".repeat(50), max);
            assert!(cut.len() <= max, "{} bytes of at most {max}: {cut:?}", cut.len());
            assert!(cut.ends_with('…'));
        }
    }
}
