//! `beckon://` links, read by the core's [`Link`] parser and turned into where the window
//! goes. A link only navigates; anything malformed becomes a message for the window.

use beckon_core::Link;

use crate::dto::NavTarget;

/// Reads a link into where to go (or what is wrong with it).
pub fn parse(link: &str) -> NavTarget {
    match Link::parse(link) {
        Ok(Link::Inbox) => NavTarget::Inbox,
        Ok(Link::Question(id)) => NavTarget::Question { id },
        Ok(Link::Session(id)) => NavTarget::Session { id },
        Err(err) => NavTarget::Problem { message: err.to_string() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "0190f1d2-7a3b-7c4d-8e5f-6a7b8c9d0e1f";

    #[test]
    fn good_links_navigate() {
        assert_eq!(parse("beckon://inbox"), NavTarget::Inbox);
        assert_eq!(parse(&format!("beckon://question/{ID}")), NavTarget::Question { id: ID.parse().unwrap() });
        assert_eq!(parse(&format!("beckon://session/{ID}?x=1")), NavTarget::Session { id: ID.parse().unwrap() });
    }

    #[test]
    fn malformed_links_become_the_messages_the_window_shows() {
        let problem = |message: &str| NavTarget::Problem { message: message.to_owned() };
        assert_eq!(
            parse("beckon://question/not-an-id"),
            problem("\"beckon://question/not-an-id\" does not name a question: the id is not valid.")
        );
        assert_eq!(
            parse(&format!("beckon://session/{ID}x")),
            problem(&format!("\"beckon://session/{ID}x\" does not name a session: the id is not valid."))
        );
        assert_eq!(
            parse("http://example.com"),
            problem("\"http://example.com\" is not a Beckon link (they start with beckon://).")
        );
        assert_eq!(
            parse("beckon://settings"),
            problem(
                "\"beckon://settings\" is not a link Beckon understands (beckon://inbox, beckon://question/<id> or beckon://session/<id>)."
            )
        );
        let long = format!("beckon://inbox?{}", "x".repeat(5000));
        assert_eq!(
            parse(&long),
            problem(&format!("That link is {} bytes long; Beckon links are short. It was ignored.", long.len()))
        );
    }
}
