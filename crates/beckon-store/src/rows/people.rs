//! People signed in on a team server: a sign-in under way, and a browser session once signed in.

/// Who the identity provider said signed in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedIn {
    /// The provider's stable id for the person (`sub`).
    pub subject: String,
    pub email: Option<String>,
    pub name: Option<String>,
    /// The provider's groups for the person.
    pub groups: Vec<String>,
}

/// A sign-in under way, to be taken once when the person comes back.
#[derive(Clone, PartialEq, Eq)]
pub struct NewSignIn {
    /// The `state` sent to the provider; what the callback looks it up by.
    pub state: String,
    /// What only the server may know until then (the nonce and PKCE verifier), as the gateway
    /// writes it.
    pub secret: String,
    /// Where to send the person once signed in (a path on the server).
    pub next: String,
    pub at_ms: i64,
    pub expires_at_ms: i64,
}

impl std::fmt::Debug for NewSignIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewSignIn").field("state", &self.state).field("next", &self.next).finish_non_exhaustive()
    }
}

/// A sign-in taken back: its secret and where to go next.
#[derive(Clone, PartialEq, Eq)]
pub struct TakenSignIn {
    pub secret: String,
    pub next: String,
}

impl std::fmt::Debug for TakenSignIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TakenSignIn").field("next", &self.next).finish_non_exhaustive()
    }
}

/// A browser session: the SHA-256 of its cookie, who it is, and until when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PersonSession {
    pub id_hash: [u8; 32],
    pub person: SignedIn,
    pub created_at_ms: i64,
    pub expires_at_ms: i64,
}

impl SignedIn {
    /// How an answer names this person (`oidc:<subject> (<name> <email>)`), in the same shape as
    /// a channel's users (`slack:U123 (ada)`): the stable subject first, then who they are to
    /// people reading the record.
    pub fn answered_by(&self) -> String {
        let known = match (&self.name, &self.email) {
            (Some(name), Some(email)) => format!("{name} <{email}>"),
            (Some(one), None) | (None, Some(one)) => one.clone(),
            (None, None) => self.subject.clone(),
        };
        format!("{}{known})", SignedIn::answered_by_start(&self.subject))
    }

    /// How every [`SignedIn::answered_by`] of the person with `subject` begins, whatever their
    /// name and email were then (`oidc:<subject> (`): what finds the answers they gave.
    pub fn answered_by_start(subject: &str) -> String {
        format!("oidc:{subject} (")
    }
}

/// A person who paired their own account on a channel (a Slack member, a Telegram chat) after
/// signing in: a press from that account is theirs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelPerson {
    /// "slack" or "telegram".
    pub channel: String,
    /// The account on the channel: a Slack member id (`U…`), a Telegram chat id.
    pub account: String,
    /// Who they are, as the identity provider said when they last signed in or paired.
    pub person: SignedIn,
    /// When they paired (Unix ms).
    pub paired_at_ms: i64,
    /// When they last signed in (Unix ms; pairing counts): a pairing answers only while this is
    /// recent enough.
    pub signed_in_at_ms: i64,
}

/// What a signed-in session is held by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionKind {
    /// A browser, by its cookie.
    Browser,
    /// A connected desktop app, by its bearer secret; named as it named itself ("Beckon on
    /// ada-laptop, port 49152").
    App { label: String },
}

impl SessionKind {
    /// The stored name of the kind.
    pub fn as_str(&self) -> &'static str {
        match self {
            SessionKind::Browser => "browser",
            SessionKind::App { .. } => "app",
        }
    }
}

/// A person's open session as an admin lists it: never its secret or the secret's hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedSession {
    /// Who it is.
    pub person: SignedIn,
    /// Whose it is: a browser's or an app's.
    pub kind: SessionKind,
    pub created_at_ms: i64,
    pub expires_at_ms: i64,
}
