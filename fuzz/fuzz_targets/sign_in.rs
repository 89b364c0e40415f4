//! Signing in on a team server: the bytes before the first NUL, as text, are the query of the
//! identity provider's redirect back (`GET /auth/callback?…`), read by the handler's extractor;
//! each of its values is quoted on a problem page as the callback quotes the provider's error;
//! the bytes after it are the app's `POST /auth/app/token` body, read by that handler's
//! extractor. Without a NUL the same bytes are both.
//!
//! Invariants: a query that is read, written back from its own pairs, reads the same; a query
//! refused is a 400 that says why; a quoted value carries no character that HTML gives a
//! meaning to and reads back as it was; a token body that is read reads the same from its own
//! JSON written back plainly; one refused is a 400 or 422 that says why.

#![no_main]

use beckon_gateway::fuzzing::{Refused, app_token_body, callback_query, page_text};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|bytes: &[u8]| {
    let (query, body) = match bytes.iter().position(|&b| b == 0) {
        Some(nul) => (&bytes[..nul], &bytes[nul + 1..]),
        None => (bytes, bytes),
    };
    if let Ok(query) = std::str::from_utf8(query) {
        check_callback(query);
    }
    check_token_body(body);
});

fn check_callback(query: &str) {
    let Some(read) = callback_query(query) else { return };
    // A request target's query ends at a `#` (a fragment never reaches the server).
    let sent = query.split('#').next().unwrap_or_default();
    let pairs: Vec<(String, String)> =
        url::form_urlencoded::parse(sent.as_bytes()).map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
    for (_, value) in &pairs {
        check_quoted(value);
    }
    match read {
        Ok(callback) => {
            let plain = url::form_urlencoded::Serializer::new(String::new()).extend_pairs(&pairs).finish();
            match callback_query(&plain) {
                Some(Ok(again)) => assert_eq!(again, callback, "{query:?} and {plain:?} read otherwise"),
                other => panic!("{query:?} reads, but not as {plain:?}: {other:?}"),
            }
        }
        Err(refused) => check_refused(&refused, &[400]),
    }
}

/// `text` quoted on a page: no `<`, `>`, `"` or `'`, every `&` an entity, and the same text once
/// the entities are read.
fn check_quoted(text: &str) {
    let quoted = page_text(text);
    assert!(!quoted.contains(['<', '>', '"', '\'']), "{quoted:?}");
    let mut read = String::new();
    let mut rest = quoted.as_str();
    while let Some(at) = rest.find('&') {
        read.push_str(&rest[..at]);
        rest = &rest[at..];
        let entity = ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"]
            .into_iter()
            .find(|entity| rest.starts_with(entity))
            .unwrap_or_else(|| panic!("a bare & in {quoted:?}"));
        read.push(match entity {
            "&amp;" => '&',
            "&lt;" => '<',
            "&gt;" => '>',
            "&quot;" => '"',
            _ => '\'',
        });
        rest = &rest[entity.len()..];
    }
    read.push_str(rest);
    assert_eq!(read, text, "quoted as {quoted:?}");
}

fn check_token_body(bytes: &[u8]) {
    match app_token_body(bytes) {
        Ok(request) => {
            // serde_json only skims a field it skips (its text may not be UTF-8, its number out
            // of range): such a body is read, but is no JSON value to write back.
            let Ok(value) = serde_json::from_slice::<Value>(bytes) else { return };
            let plain = serde_json::to_vec(&value).expect("JSON serialises");
            match app_token_body(&plain) {
                Ok(again) => assert_eq!(again, request, "{value} reads otherwise"),
                Err(refused) => panic!("{value} does not read again: {refused:?}"),
            }
        }
        Err(refused) => check_refused(&refused, &[400, 422]),
    }
}

fn check_refused(refused: &Refused, statuses: &[u16]) {
    assert!(statuses.contains(&refused.status), "{refused:?}");
    assert!(!refused.text.trim().is_empty(), "{refused:?}");
}
