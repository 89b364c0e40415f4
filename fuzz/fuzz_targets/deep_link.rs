//! `beckon://` links as the operating system hands them over: any bytes, read as text the way
//! a deep link arrives (invalid UTF-8 replaced), go through `Link::parse`.
//!
//! Invariants: a link that is read writes back to a text that reads as the same link; a
//! refused link quotes at most 80 characters of itself, so its message stays short whatever
//! was sent.

#![no_main]

use beckon_core::link::SCHEME;
use beckon_core::{Link, LinkError};
use libfuzzer_sys::fuzz_target;

/// Characters of a refused link its message may quote.
const SHOWN_MAX_CHARS: usize = 80;
/// The longest message: the longest fixed text plus the quoted part (escaped characters
/// aside, quoting is verbatim).
const MESSAGE_MAX_CHARS: usize = 160 + SHOWN_MAX_CHARS;

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
            assert!(shown.chars().count() <= SHOWN_MAX_CHARS, "quotes {} characters", shown.chars().count());
            assert!(text.starts_with(shown), "quotes {shown:?}, which is not the start of the link");
            let message = err.to_string();
            assert!(!message.is_empty());
            assert!(message.chars().count() <= MESSAGE_MAX_CHARS, "message of {} characters", message.chars().count());
        }
    }
});
