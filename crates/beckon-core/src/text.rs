//! Checks shared by every piece of text an agent or a person supplies.

use crate::problem::Problems;

/// Whether a text may span lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lines {
    /// Labels, headers, enum values: one line, no control characters at all.
    Single,
    /// Question texts, descriptions, comments, free text: newlines and tabs allowed.
    Multi,
}

/// Bidirectional embedding, override and isolate controls: invisible, and able to make text
/// read differently from what it is ("Trojan Source"), so they are refused outright.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Bidirectional marks (left-to-right, right-to-left, Arabic letter mark): invisible too, and
/// part of right-to-left writing, so question texts keep them; text read at a glance where a
/// command is allowed (a notice, a notification) does not.
pub fn is_bidi_mark(c: char) -> bool {
    matches!(c, '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// The start of an untrusted text, at most `max_chars` characters, made safe to quote back in
/// a message: control and bidi characters are written as escapes (`\u{202e}`), so the message
/// reads as what was sent and cannot reorder or break the text around it.
pub(crate) fn quoted(text: &str, max_chars: usize) -> String {
    let mut shown = String::new();
    for c in text.chars().take(max_chars) {
        if c.is_control() || is_bidi_control(c) {
            shown.extend(c.escape_unicode());
        } else {
            shown.push(c);
        }
    }
    shown
}

/// `text` with every character refused in multi-line text (controls other than newline and
/// tab, bidi controls) written as an escape, so untrusted text can be shown as it is.
pub(crate) fn escape_refused(text: &str) -> String {
    let mut shown = String::with_capacity(text.len());
    for c in text.chars() {
        if is_refused_control(c, Lines::Multi) || c == '\r' {
            shown.extend(c.escape_unicode());
        } else {
            shown.push(c);
        }
    }
    shown
}

fn is_refused_control(c: char, lines: Lines) -> bool {
    if is_bidi_control(c) {
        return true;
    }
    match lines {
        Lines::Single => c.is_control(),
        Lines::Multi => c.is_control() && !matches!(c, '\n' | '\t' | '\r'),
    }
}

/// Checks one text field: not blank (when `required`), within `max_bytes`, and free of
/// refused control characters. Records problems at `path`.
pub(crate) fn check(path: &str, text: &str, lines: Lines, max_bytes: usize, problems: &mut Problems) {
    if text.trim().is_empty() {
        problems.push(path, "must not be empty or only whitespace");
        return;
    }
    check_size_and_characters(path, text, lines, max_bytes, problems);
}

/// Like [`check`] but an empty text is allowed.
pub(crate) fn check_size_and_characters(
    path: &str,
    text: &str,
    lines: Lines,
    max_bytes: usize,
    problems: &mut Problems,
) {
    if text.len() > max_bytes {
        problems.push(path, format!("is {} bytes long; the limit is {max_bytes} bytes, so shorten it", text.len()));
    }
    if let Some(c) = text.chars().find(|&c| is_refused_control(c, lines)) {
        let allowed = match lines {
            Lines::Single => "this field must be a single line without control characters",
            Lines::Multi => "only newlines and tabs are allowed",
        };
        problems.push(path, format!("contains the control character U+{:04X}; {allowed}", c as u32));
    }
}

/// Whether `text` is 1 to `max` bytes of ASCII letters, digits and the characters in `extra`.
pub(crate) fn is_name(text: &str, max: usize, extra: &[char]) -> bool {
    !text.is_empty() && text.len() <= max && text.chars().all(|c| c.is_ascii_alphanumeric() || extra.contains(&c))
}

/// Checks a name an agent outside Beckon gives (itself, a grouping key, a delivery key): 1 to
/// `max` letters, digits, '-', '_', '.', ':' or '/'. Records a problem at `path`.
pub fn check_name(path: &str, text: &str, max: usize, problems: &mut Problems) {
    if !is_name(text, max, &['-', '_', '.', ':', '/']) {
        problems.push(path, format!("must be 1 to {max} letters, digits, '-', '_', '.', ':' or '/'"));
    }
}

/// The first `max_chars` characters of `text`, with an ellipsis when cut: for messages that
/// quote what they refuse without repeating an oversize input.
pub(crate) fn quote(text: &str, max_chars: usize) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(max_chars).collect();
    if chars.next().is_some() { format!("{head:?}…") } else { format!("{head:?}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems_of(text: &str, lines: Lines, max: usize) -> Vec<String> {
        let mut problems = Problems::new();
        check("f", text, lines, max, &mut problems);
        problems.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn blank_text_is_refused() {
        assert_eq!(problems_of("  \n", Lines::Multi, 10), vec!["f: must not be empty or only whitespace"]);
    }

    #[test]
    fn oversize_text_names_both_sizes() {
        assert_eq!(
            problems_of("abcdef", Lines::Single, 5),
            vec!["f: is 6 bytes long; the limit is 5 bytes, so shorten it"]
        );
    }

    #[test]
    fn byte_limit_counts_utf8_bytes() {
        assert!(problems_of("éé", Lines::Single, 4).is_empty());
        assert_eq!(problems_of("ééé", Lines::Single, 5).len(), 1);
    }

    #[test]
    fn newlines_are_fine_in_multi_line_text_only() {
        assert!(problems_of("a\nb\tc", Lines::Multi, 10).is_empty());
        assert_eq!(
            problems_of("a\nb", Lines::Single, 10),
            vec![
                "f: contains the control character U+000A; this field must be a single line without control characters"
            ]
        );
    }

    #[test]
    fn quoted_text_shows_controls_as_escapes() {
        assert_eq!(quoted("a\u{202E}b\r\nc", 80), "a\\u{202e}b\\u{d}\\u{a}c");
        assert_eq!(quoted("ééé", 2), "éé");
    }

    #[test]
    fn escape_and_bidi_controls_are_refused_everywhere() {
        assert_eq!(problems_of("a\u{1b}[31m", Lines::Multi, 99).len(), 1);
        assert_eq!(problems_of("abc\u{202E}fed", Lines::Multi, 99).len(), 1);
        assert_eq!(problems_of("x\u{2066}y", Lines::Single, 99).len(), 1);
        assert_eq!(problems_of("nul\0", Lines::Multi, 99).len(), 1);
    }

    #[test]
    fn quote_cuts_long_text() {
        assert_eq!(quote("abc", 5), "\"abc\"");
        assert_eq!(quote("abcdef", 3), "\"abc\"…");
    }
}
