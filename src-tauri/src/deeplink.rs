//! `beckon://` links: `beckon://question/<uuid>`, `beckon://session/<uuid>`, `beckon://inbox`.
//! A link only navigates: whatever else it carries (a query such as `?answer=yes`, a
//! fragment) is ignored, and it never answers, declines or starts anything. Anything
//! malformed becomes a message for the window.

use beckon_core::{RequestId, SessionId};

use crate::dto::NavTarget;

/// The longest link read.
pub const MAX_LINK_BYTES: usize = 2048;

/// Reads a link into where to go (or what is wrong with it).
pub fn parse(link: &str) -> NavTarget {
    let problem = |message: String| NavTarget::Problem { message };
    if link.len() > MAX_LINK_BYTES {
        return problem(format!("That link is {} bytes long; Beckon links are short. It was ignored.", link.len()));
    }
    let shown: String = link.chars().take(80).collect();
    let Some(rest) = link.trim().strip_prefix("beckon://") else {
        return problem(format!("\"{shown}\" is not a Beckon link (they start with beckon://)."));
    };
    // Navigation ignores queries and fragments; they can never make a link do more.
    let path = rest.split(['?', '#']).next().unwrap_or_default().trim_end_matches('/');
    let parts: Vec<&str> = path.split('/').collect();
    match parts.as_slice() {
        ["inbox"] => NavTarget::Inbox,
        ["question", id] => match RequestId::parse(id) {
            Ok(id) => NavTarget::Question { id },
            Err(_) => problem(format!("\"{shown}\" does not name a question: the id is not valid.")),
        },
        ["session", id] => match SessionId::parse(id) {
            Ok(id) => NavTarget::Session { id },
            Err(_) => problem(format!("\"{shown}\" does not name a session: the id is not valid.")),
        },
        _ => problem(format!(
            "\"{shown}\" is not a link Beckon understands (beckon://inbox, beckon://question/<id> or beckon://session/<id>)."
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "0190f1d2-7a3b-7c4d-8e5f-6a7b8c9d0e1f";

    #[test]
    fn good_links_navigate() {
        assert_eq!(parse("beckon://inbox"), NavTarget::Inbox);
        assert_eq!(parse("beckon://inbox/"), NavTarget::Inbox);
        assert_eq!(parse(&format!("beckon://question/{ID}")), NavTarget::Question { id: ID.parse().unwrap() });
        assert_eq!(parse(&format!("beckon://session/{ID}")), NavTarget::Session { id: ID.parse().unwrap() });
    }

    #[test]
    fn queries_and_fragments_only_ever_navigate() {
        assert_eq!(
            parse(&format!("beckon://question/{ID}?answer=Yes&decline=1")),
            NavTarget::Question { id: ID.parse().unwrap() }
        );
        assert_eq!(parse(&format!("beckon://question/{ID}#submit")), NavTarget::Question { id: ID.parse().unwrap() });
    }

    #[test]
    fn malformed_links_become_messages() {
        for bad in [
            "beckon://question/not-an-id",
            "beckon://question/",
            &format!("beckon://question/{ID}/answer/Yes"),
            "beckon://settings",
            "http://example.com",
            "beckon:question",
            "",
            &format!("beckon://session/{ID}x"),
        ] {
            assert!(matches!(parse(bad), NavTarget::Problem { .. }), "{bad}");
        }
        let NavTarget::Problem { message } = parse(&format!("beckon://inbox?{}", "x".repeat(5000))) else { panic!() };
        assert!(message.contains("bytes long"), "{message}");
    }
}
