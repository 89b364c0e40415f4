//! The hostile-input corpus (`tests/hostile/links.json`) against the `beckon://` link parser:
//! a link only ever navigates, and a refused one gets a short message that quotes at most the
//! start of what it was given.

use beckon_testkit::corpus;

use beckon_core::{Link, LinkError};

const ID: &str = "0190f1d2-7a3b-7c4d-8e5f-6a7b8c9d0e1f";

fn kind(error: &LinkError) -> &'static str {
    match error {
        LinkError::TooLong { .. } => "TooLong",
        LinkError::NotBeckon { .. } => "NotBeckon",
        LinkError::InvalidQuestionId { .. } => "InvalidQuestionId",
        LinkError::InvalidSessionId { .. } => "InvalidSessionId",
        LinkError::Unknown { .. } => "Unknown",
    }
}

#[test]
fn hostile_links_navigate_or_are_refused_with_a_short_message() {
    for case in corpus::cases("links.json") {
        let name = corpus::name(&case);
        let link = corpus::text(&case["link"]).replace("{id}", ID);
        let parsed = Link::parse(&link);
        match (&case["expect"], parsed) {
            (serde_json::Value::String(place), Ok(found)) => {
                let expected = match place.as_str() {
                    "inbox" => Link::Inbox,
                    "question" => Link::Question(ID.parse().unwrap()),
                    "session" => Link::Session(ID.parse().unwrap()),
                    other => panic!("{name}: no place {other}"),
                };
                assert_eq!(found, expected, "{name}");
            }
            (serde_json::Value::Object(refusal), Err(error)) => {
                assert_eq!(kind(&error), refusal["error"].as_str().unwrap(), "{name}: {error}");
                let message = error.to_string();
                assert!(message.len() <= 400, "{name}: the message repeats the link: {} bytes", message.len());
                if let Some(part) = refusal.get("message_contains").and_then(|v| v.as_str()) {
                    assert!(message.contains(part), "{name}: {part:?} not in {message:?}");
                }
            }
            (expect, parsed) => panic!("{name}: expected {expect}, got {parsed:?}"),
        }
    }
}
