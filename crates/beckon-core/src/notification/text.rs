//! Text as a notification shows it. Agents write most of it, and a notification is read at a
//! glance, so nothing in it may read differently from what it is: characters that reorder text
//! (bidi controls) or hide it (zero-width and other invisible formatting characters) are
//! dropped, control characters become spaces, and long text is cut with an ellipsis. Markup is
//! escaped by the backend, where the notification service renders it.
//!
//! Whether a text was changed on the way is reported, so a notification that asks for
//! permission can offer "Allow" only for what it shows exactly.

/// Bidi controls and marks: embeddings, overrides, isolates and marks. Invisible, and able to
/// make text read in another order than it runs ("Trojan Source").
pub fn is_bidi_control(c: char) -> bool {
    crate::is_bidi_control(c) || crate::is_bidi_mark(c)
}

/// Characters that take no room on screen (Unicode's default-ignorable code points): soft
/// hyphens, zero-width spaces and joiners, the word joiner and invisible operators, variation
/// selectors, Hangul fillers, the byte-order mark, interlinear annotation marks and tags.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{115F}'..='\u{1160}'
            | '\u{17B4}'..='\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200D}'
            | '\u{2060}'..='\u{2065}'
            | '\u{206A}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF0}'..='\u{FFFB}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
}

/// Text made fit for a notification, and whether that changed what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    /// The text to show.
    pub text: String,
    /// Whether it is the whole of the original, character for character (tabs shown as
    /// spaces).
    pub whole: bool,
}

/// `text` with bidi controls and invisible characters dropped and control characters (but line
/// breaks) shown as spaces, cut to `max_chars` characters and `max_lines` lines with an
/// ellipsis.
pub fn fit(text: &str, max_chars: usize, max_lines: usize) -> Shown {
    let mut whole = true;
    let mut cleaned = String::with_capacity(text.len().min(max_chars * 4));
    // Trailing blank space shows nothing, so leaving it out hides nothing.
    for c in text.trim_end().chars() {
        match c {
            '\n' => cleaned.push('\n'),
            '\t' => cleaned.push(' '),
            // Line and paragraph separators break lines as a newline would.
            '\u{2028}' | '\u{2029}' => {
                cleaned.push('\n');
                whole = false;
            }
            c if is_bidi_control(c) || is_invisible(c) => whole = false,
            c if c.is_control() => {
                cleaned.push(' ');
                whole = false;
            }
            c => cleaned.push(c),
        }
    }
    let mut lines = cleaned.split('\n');
    let kept: Vec<&str> = lines.by_ref().take(max_lines).collect();
    let mut shown = kept.join("\n");
    let mut cut = lines.next().is_some();
    if shown.chars().count() > max_chars {
        shown = shown.chars().take(max_chars.saturating_sub(1)).collect();
        cut = true;
    }
    if cut {
        shown.truncate(shown.trim_end().len());
        shown.push('…');
    }
    Shown { text: shown, whole: whole && !cut }
}

/// `text` fit for a notification on one screen line or a few: see [`fit`].
pub fn cut(text: &str, max_chars: usize) -> String {
    fit(text, max_chars, usize::MAX).text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bidi_controls_and_invisible_characters_are_dropped_and_reported() {
        let shown = fit("ls # \u{202E}gnp.exe\u{2066}\u{200B}", 100, 5);
        assert_eq!(shown.text, "ls # gnp.exe");
        assert!(!shown.whole);
        let tags_and_fillers = ['\u{E0041}', '\u{E007F}', '\u{206A}', '\u{FFF9}', '\u{FE0F}', '\u{3164}', '\u{034F}'];
        for c in ['\u{200E}', '\u{200F}', '\u{061C}', '\u{2069}', '\u{FEFF}'].into_iter().chain(tags_and_fillers) {
            assert_eq!(fit(&format!("a{c}b"), 10, 1), Shown { text: "ab".into(), whole: false }, "{c:?}");
        }
    }

    #[test]
    fn control_characters_become_spaces_and_newlines_stay() {
        assert_eq!(fit("a\rb\u{7}c\td\ne", 100, 5), Shown { text: "a b c d\ne".into(), whole: false });
        assert_eq!(fit("a\tb\nc", 100, 5), Shown { text: "a b\nc".into(), whole: true });
    }

    #[test]
    fn long_text_and_many_lines_are_cut_with_an_ellipsis() {
        let long = fit(&"x".repeat(50), 10, 5);
        assert_eq!(long.text, format!("{}…", "x".repeat(9)));
        assert!(!long.whole);
        let tall = fit("1\n2\n3\n4", 100, 2);
        assert_eq!(tall, Shown { text: "1\n2…".into(), whole: false });
        assert_eq!(fit("exactly", 7, 1), Shown { text: "exactly".into(), whole: true });
        assert_eq!(cut(&"y".repeat(300), 240).chars().count(), 240);
    }
}
