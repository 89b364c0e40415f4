//! The window's command bodies on a team server (`POST /v1/window/{command}`): the same bytes
//! are read as the arguments of every command the server has (`WINDOW_COMMANDS`), by the
//! reader the route calls (`fuzzing::window_command`).
//!
//! Invariants: a body of blank space reads as no arguments; what is read takes only fields its
//! arguments have (each key given is written back), and read again from its own JSON it is the
//! same; a refusal is a 400 that says the arguments cannot be read.

#![no_main]

use beckon_gateway::fuzzing::{WINDOW_COMMANDS, window_command};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|bytes: &[u8]| {
    let blank = bytes.iter().all(u8::is_ascii_whitespace);
    // serde_json only skims a field it skips (its text may not be UTF-8, its number out of
    // range): such a body may be read, but is no JSON value to write back.
    let value = if blank { Some(Value::Object(Default::default())) } else { serde_json::from_slice(bytes).ok() };
    for name in WINDOW_COMMANDS {
        let read = window_command(name, bytes);
        if blank {
            assert_eq!(read.as_ref().ok(), window_command(name, b"{}").as_ref().ok(), "{name}: blank is not no arguments");
        }
        match read {
            Ok(command) => {
                assert_eq!(command["command"], *name);
                let Some(value) = &value else { continue };
                if let (Value::Object(given), Value::Object(written)) = (value, &command["args"]) {
                    for key in given.keys() {
                        assert!(written.contains_key(key), "{name} took the unknown field {key:?}");
                    }
                }
                let plain = serde_json::to_vec(&command["args"]).expect("JSON serialises");
                let again = window_command(name, &plain).unwrap_or_else(|err| {
                    panic!("{name} does not read its own JSON {}: {}", command["args"], err.body().message)
                });
                assert_eq!(again, command, "{name} reads {value} otherwise");
            }
            Err(err) => {
                assert_eq!(err.status().as_u16(), 400, "{name}: {}", err.body().message);
                assert!(err.body().message.starts_with("the arguments cannot be read"), "{}", err.body().message);
            }
        }
    }
});
