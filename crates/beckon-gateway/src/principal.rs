//! Who a request acts for: the person (the token in `gateway.json`, or a team server's admin
//! token), an agent on another machine holding an ask-only token, or — on a team server — a
//! person signed in through the team's identity provider, by their browser session's cookie.
//! The guard puts it in the request's extensions; handlers that act differently for each read
//! it from there.

use beckon_core::{AnsweredVia, Answerer, Audience, SignedInPerson};
use beckon_runtime::TokenHolder;
use beckon_store::SignedIn;

/// Who a request acts for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Principal {
    /// Whoever holds this Beckon's full token: the person who runs it (the token in
    /// `gateway.json`), or on a team server the holder of its admin token.
    Owner,
    /// An agent holding an ask-only token: it may ask, and read or withdraw what it asked.
    AskOnly {
        /// The token it holds.
        token: TokenHolder,
    },
    /// A person signed in on a team server, from the window served to their browser.
    Member(Member),
}

/// A person signed in on a team server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// Who the identity provider said they are.
    pub person: SignedIn,
    /// The SHA-256 of the session's cookie or bearer secret: what goes with their sign-in.
    pub session: [u8; 32],
    /// Whether they are in the server's admin group (they manage tokens and read the whole audit
    /// trail).
    pub admin: bool,
}

impl Member {
    /// Who they are, as the runtime's audience rules read it.
    pub fn signed_in(&self) -> SignedInPerson {
        SignedInPerson { subject: self.person.subject.clone(), groups: self.person.groups.clone() }
    }

    /// Whether a question or session addressed to `audience` (everyone's when `None`) is theirs
    /// to see: an admin sees everything.
    pub fn sees(&self, audience: Option<&Audience>) -> bool {
        self.admin || audience.is_none_or(|audience| audience.includes(&self.person.subject, &self.person.groups))
    }
}

impl Principal {
    /// Who an answer given through a REST route is recorded as: a signed-in person answers
    /// from Beckon's window (served to their browser) under their own name; a token holder is
    /// a program using the HTTP API.
    pub fn answerer(&self) -> Answerer {
        match self {
            Principal::Member(member) => Answerer {
                via: AnsweredVia::Window,
                by: Some(member.person.answered_by()),
                signed_in: Some(member.signed_in()),
            },
            Principal::Owner | Principal::AskOnly { .. } => Answerer::from(AnsweredVia::Http),
        }
    }
}
