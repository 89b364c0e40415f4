//! Web Push on a team server: a signed-in person's browser that takes pushes (a device), and
//! what its push outbox holds.

use beckon_core::RequestId;

use super::QuestionRecord;

/// A browser's push subscription, as the browser gives it (`PushSubscription.toJSON()`), kept
/// for the sign-in it was made in.
#[derive(Clone, PartialEq, Eq)]
pub struct PushDevice {
    /// The push service's URL for this browser: where pushes are sent, and its name here.
    pub endpoint: String,
    /// The SHA-256 of the sign-in's cookie or bearer secret: the device goes with it.
    pub session_hash: [u8; 32],
    /// Whose device it is (the identity provider's `sub`).
    pub subject: String,
    /// The browser's P-256 public key (RFC 8291 `ua_public`), base64url.
    pub p256dh: String,
    /// The browser's authentication secret (RFC 8291 `auth_secret`), base64url.
    pub auth: String,
    /// When it was added (Unix ms): questions asked before are not pushed to it.
    pub created_at_ms: i64,
}

impl std::fmt::Debug for PushDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The endpoint is a capability (whoever has it may push to the browser): never logged.
        f.debug_struct("PushDevice").field("subject", &self.subject).finish_non_exhaustive()
    }
}

/// What one device has to be sent: the questions for it not pushed yet, and those whose push
/// is due again (a failed attempt, or one in doubt after a crash), oldest first.
#[derive(Debug, Clone, PartialEq)]
pub struct PushDue {
    pub device: PushDevice,
    /// Each question with the attempts made so far at pushing it to this device.
    pub questions: Vec<(QuestionRecord, i64)>,
}

/// Where one question's push to one device stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PushState {
    /// About to be sent, or sent without an answer yet: due again at its `next_attempt_at`.
    Sending,
    /// The push service took it.
    Sent,
    /// Given up.
    Failed,
}

impl PushState {
    /// The name as stored.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Sending => "sending",
            Self::Sent => "sent",
            Self::Failed => "failed",
        }
    }

    /// Reads the name as stored.
    pub(crate) fn parse(text: &str) -> Option<Self> {
        [Self::Sending, Self::Sent, Self::Failed].into_iter().find(|state| state.as_str() == text)
    }
}

/// A push of some questions to one device: what the outbox records of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushAttempt<'a> {
    pub endpoint: &'a str,
    pub request_ids: &'a [RequestId],
}
