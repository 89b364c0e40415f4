//! `beckon://` links: `beckon://inbox`, `beckon://question/<id>` and `beckon://session/<id>`.
//!
//! A link only navigates. Whatever else it carries (a query such as `?answer=yes`, a
//! fragment) is ignored, so no link can answer, decline or start anything. A link that is not
//! one of these is refused with a message the person can read.

use std::fmt;

use crate::ids::{RequestId, SessionId};
use crate::limits::LINK_MAX_BYTES;
use crate::text::quoted;

/// The scheme every Beckon link starts with.
pub const SCHEME: &str = "beckon://";

/// Characters of a refused link quoted back in its message.
const SHOWN_CHARS: usize = 80;

/// Where a `beckon://` link leads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Link {
    /// `beckon://inbox`.
    Inbox,
    /// `beckon://question/<id>`: one question, in its session.
    Question(RequestId),
    /// `beckon://session/<id>`: one session.
    Session(SessionId),
}

/// Why a link was refused; its text is the message shown to the person.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    /// Longer than any Beckon link.
    #[error("That link is {bytes} bytes long; Beckon links are short. It was ignored.")]
    TooLong {
        /// The link's length in bytes.
        bytes: usize,
    },
    /// Not a `beckon://` link at all.
    #[error("\"{shown}\" is not a Beckon link (they start with beckon://).")]
    NotBeckon {
        /// The start of the link.
        shown: String,
    },
    /// `beckon://question/<id>` whose id is not an id.
    #[error("\"{shown}\" does not name a question: the id is not valid.")]
    InvalidQuestionId {
        /// The start of the link.
        shown: String,
    },
    /// `beckon://session/<id>` whose id is not an id.
    #[error("\"{shown}\" does not name a session: the id is not valid.")]
    InvalidSessionId {
        /// The start of the link.
        shown: String,
    },
    /// A `beckon://` link to a place that does not exist.
    #[error(
        "\"{shown}\" is not a link Beckon understands (beckon://inbox, beckon://question/<id> or beckon://session/<id>)."
    )]
    Unknown {
        /// The start of the link.
        shown: String,
    },
}

impl Link {
    /// Reads a link, ignoring surrounding whitespace, its query and its fragment.
    pub fn parse(text: &str) -> Result<Link, LinkError> {
        if text.len() > LINK_MAX_BYTES {
            return Err(LinkError::TooLong { bytes: text.len() });
        }
        let shown = || quoted(text, SHOWN_CHARS);
        let Some(rest) = text.trim().strip_prefix(SCHEME) else {
            return Err(LinkError::NotBeckon { shown: shown() });
        };
        // Navigation ignores queries and fragments; they can never make a link do more.
        let path = rest.split(['?', '#']).next().unwrap_or_default().trim_end_matches('/');
        let parts: Vec<&str> = path.split('/').collect();
        match parts.as_slice() {
            ["inbox"] => Ok(Link::Inbox),
            ["question", id] => {
                RequestId::parse(id).map(Link::Question).map_err(|_| LinkError::InvalidQuestionId { shown: shown() })
            }
            ["session", id] => {
                SessionId::parse(id).map(Link::Session).map_err(|_| LinkError::InvalidSessionId { shown: shown() })
            }
            _ => Err(LinkError::Unknown { shown: shown() }),
        }
    }
}

impl fmt::Display for Link {
    /// The link's canonical text, which [`Link::parse`] reads back to the same place.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Link::Inbox => write!(f, "{SCHEME}inbox"),
            Link::Question(id) => write!(f, "{SCHEME}question/{id}"),
            Link::Session(id) => write!(f, "{SCHEME}session/{id}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const ID: &str = "0190f1d2-7a3b-7c4d-8e5f-6a7b8c9d0e1f";

    fn question() -> Link {
        Link::Question(ID.parse().unwrap())
    }

    #[test]
    fn good_links_navigate() {
        assert_eq!(Link::parse("beckon://inbox"), Ok(Link::Inbox));
        assert_eq!(Link::parse(" beckon://inbox/ \n"), Ok(Link::Inbox));
        assert_eq!(Link::parse(&format!("beckon://question/{ID}")), Ok(question()));
        assert_eq!(Link::parse(&format!("beckon://session/{ID}")), Ok(Link::Session(ID.parse().unwrap())));
    }

    #[test]
    fn queries_and_fragments_only_ever_navigate() {
        assert_eq!(Link::parse(&format!("beckon://question/{ID}?answer=Yes&decline=1")), Ok(question()));
        assert_eq!(Link::parse(&format!("beckon://question/{ID}#submit")), Ok(question()));
        assert_eq!(Link::parse(&format!("beckon://question/{ID}/?answer=Yes")), Ok(question()));
    }

    #[test]
    fn malformed_links_are_refused_with_what_is_wrong() {
        let cases = [
            ("beckon://question/not-an-id", "does not name a question"),
            ("beckon://question/", "is not a link Beckon understands"),
            (&format!("beckon://question/{ID}/answer/Yes"), "is not a link Beckon understands"),
            ("beckon://settings", "is not a link Beckon understands"),
            ("http://example.com", "is not a Beckon link"),
            ("beckon:question", "is not a Beckon link"),
            ("", "is not a Beckon link"),
            (&format!("beckon://session/{ID}x"), "does not name a session"),
        ];
        for (link, expected) in cases {
            let message = Link::parse(link).unwrap_err().to_string();
            assert!(message.contains(expected), "{link}: {message}");
        }
    }

    #[test]
    fn messages_are_the_ones_the_window_shows() {
        assert_eq!(
            Link::parse("beckon://settings").unwrap_err().to_string(),
            "\"beckon://settings\" is not a link Beckon understands (beckon://inbox, beckon://question/<id> or beckon://session/<id>)."
        );
        assert_eq!(
            Link::parse("mailto:x").unwrap_err().to_string(),
            "\"mailto:x\" is not a Beckon link (they start with beckon://)."
        );
    }

    #[test]
    fn long_links_are_refused_and_quoted_only_in_part() {
        let long = format!("beckon://inbox?{}", "x".repeat(5000));
        assert_eq!(Link::parse(&long), Err(LinkError::TooLong { bytes: long.len() }));
        let LinkError::Unknown { shown } = Link::parse(&format!("beckon://{}", "é".repeat(500))).unwrap_err() else {
            panic!("expected an unknown link")
        };
        assert_eq!(shown.chars().count(), SHOWN_CHARS);
    }

    #[test]
    fn control_and_bidi_characters_are_quoted_as_escapes() {
        let LinkError::Unknown { shown } = Link::parse("beckon://x\u{202E}yz\r\nnext").unwrap_err() else {
            panic!("expected an unknown link")
        };
        assert_eq!(shown, "beckon://x\\u{202e}yz\\u{d}\\u{a}next");
    }

    #[test]
    fn display_writes_the_canonical_link() {
        assert_eq!(question().to_string(), format!("beckon://question/{ID}"));
        assert_eq!(Link::Inbox.to_string(), "beckon://inbox");
    }

    fn any_link() -> impl Strategy<Value = Link> {
        prop_oneof![
            Just(Link::Inbox),
            any::<u128>().prop_map(|n| Link::Question(RequestId::from_uuid(uuid::Uuid::from_u128(n)))),
            any::<u128>().prop_map(|n| Link::Session(SessionId::from_uuid(uuid::Uuid::from_u128(n)))),
        ]
    }

    proptest! {
        #[test]
        fn arbitrary_text_never_panics(text in any::<String>()) {
            let _ = Link::parse(&text);
        }

        #[test]
        fn arbitrary_text_after_the_scheme_never_panics(rest in "[a-z/?#%0-9-]{0,80}|.{0,80}") {
            let _ = Link::parse(&format!("{SCHEME}{rest}"));
        }

        #[test]
        fn a_query_or_fragment_never_changes_the_target(
            link in any_link(),
            slash in any::<bool>(),
            mark in prop::sample::select(vec!['?', '#']),
            suffix in any::<String>(),
        ) {
            let base = format!("{link}{}", if slash { "/" } else { "" });
            let text = format!("{base}{mark}{suffix}");
            prop_assume!(text.len() <= LINK_MAX_BYTES);
            prop_assert_eq!(Link::parse(&base), Ok(link));
            prop_assert_eq!(Link::parse(&text), Ok(link));
        }

        #[test]
        fn every_link_reads_back_from_its_text(link in any_link()) {
            prop_assert_eq!(Link::parse(&link.to_string()), Ok(link));
        }
    }
}
