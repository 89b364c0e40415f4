//! `beckon://` links as the operating system hands them over: any bytes, read as text the way
//! a deep link arrives (invalid UTF-8 replaced), go through `Link::parse`.
//!
//! Invariants: a link that is read writes back to a text that reads as the same link; a
//! refused link quotes at most 80 characters of itself, with control and bidi characters
//! written as escapes, so its message stays short and cannot reorder the text around it.

#![no_main]

use beckon_core::link::SCHEME;
use beckon_core::{Link, LinkError};
use libfuzzer_sys::fuzz_target;

/// Characters of a refused link its message may quote.
const SHOWN_MAX_CHARS: usize = 80;
/// The longest escape of one character (`\u{10ffff}`).
const ESCAPE_MAX_CHARS: usize = 10;
/// The longest message: the longest fixed text plus the quoted part.
const MESSAGE_MAX_CHARS: usize = 160 + SHOWN_MAX_CHARS * ESCAPE_MAX_CHARS;

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// What a refusal must quote of `text`: its first characters, controls escaped.
fn expected_quote(text: &str) -> String {
    let mut quoted = String::new();
    for c in text.chars().take(SHOWN_MAX_CHARS) {
        if c.is_control() || is_bidi_control(c) {
            quoted.extend(c.escape_unicode());
        } else {
            quoted.push(c);
        }
    }
    quoted
}

fuzz_target!(|bytes: &[u8]| {
    let text = String::from_utf8_lossy(bytes);
    match Link::parse(&text) {
        Ok(link) => {
            let canonical = link.to_string();
            assert!(canonical.starts_with(SCHEME), "{canonical:?} lost its scheme");
            assert_eq!(Link::parse(&canonical), Ok(link), "{canonical:?} does not read back");
        }
        Err(err) => {
            let shown = match &err {
                LinkError::TooLong { .. } => "",
                LinkError::NotBeckon { shown }
                | LinkError::InvalidQuestionId { shown }
                | LinkError::InvalidSessionId { shown }
                | LinkError::Unknown { shown } => shown.as_str(),
            };
            if !matches!(err, LinkError::TooLong { .. }) {
                assert_eq!(shown, expected_quote(&text), "does not quote the start of the link");
            }
            assert!(!shown.chars().any(|c| c.is_control() || is_bidi_control(c)), "quotes {shown:?} unescaped");
            let message = err.to_string();
            assert!(!message.is_empty());
            assert!(message.chars().count() <= MESSAGE_MAX_CHARS, "message of {} characters", message.chars().count());
        }
    }
});
