//! The window's command bodies on a team server (`POST /v1/window/{command}`): the same bytes
//! are read as each command's arguments, by the reader every command calls
//! (`fuzzing::window_args`, one per argument type).
//!
//! Invariants: a body of blank space reads as no arguments; what is read names only the type's
//! own fields, camelCase, and read again from its own JSON, written back plainly, it is the
//! same; a refusal is a 400 that says the arguments cannot be read.

#![no_main]

use beckon_gateway::fuzzing::{WindowArgs, window_args};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// The field names the window sends for `kind`'s arguments.
fn fields(kind: WindowArgs) -> &'static [&'static str] {
    match kind {
        WindowArgs::Nothing => &[],
        WindowArgs::ListSessions => &["after", "limit"],
        WindowArgs::OfSession => &["sessionId", "reason"],
        WindowArgs::OfQuestion => &["requestId", "answers", "reason", "via"],
        WindowArgs::AnswerBatch => &["requestIds", "decision"],
        WindowArgs::OfChannel => &["channel"],
    }
}

fuzz_target!(|bytes: &[u8]| {
    let blank = bytes.iter().all(u8::is_ascii_whitespace);
    // serde_json only skims a field it skips (its text may not be UTF-8, its number out of
    // range): such a body may be read, but is no JSON value to write back.
    let value = if blank { Some(Value::Object(Default::default())) } else { serde_json::from_slice(bytes).ok() };
    for kind in WindowArgs::ALL {
        let read = window_args(kind, bytes);
        if blank {
            assert_eq!(
                read.as_ref().ok(),
                window_args(kind, b"{}").as_ref().ok(),
                "{kind:?}: blank is not no arguments"
            );
        }
        match read {
            Ok(args) => {
                let Some(value) = &value else { continue };
                if let Value::Object(given) = value {
                    for key in given.keys() {
                        assert!(fields(kind).contains(&key.as_str()), "{kind:?} took the unknown field {key:?}");
                    }
                }
                let plain = serde_json::to_vec(value).expect("JSON serialises");
                let again = window_args(kind, &plain).unwrap_or_else(|err| {
                    panic!("{kind:?} does not read its own JSON {value}: {}", err.body().message)
                });
                assert_eq!(again, args, "{kind:?} reads {value} otherwise");
            }
            Err(err) => {
                assert_eq!(err.status().as_u16(), 400, "{kind:?}: {}", err.body().message);
                assert!(err.body().message.starts_with("the arguments cannot be read"), "{}", err.body().message);
            }
        }
    }
});
