//! What the HTTP API answers with, as types: a question and a session as agents and scripts
//! read them, and the small replies of the other routes. The server writes these and the
//! clients read them, so neither side spells a field by hand.

use beckon_core::conversation::SessionStatus;
use beckon_core::{AnsweredVia, Notice, Outcome, QuestionRequest, RequestId, SessionId, SessionOrigin};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{ErrorBody, QuestionStatus, TokenView};

/// A question as the HTTP API shows it, with links and (once resolved) the result its agent
/// received.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestionView {
    /// The question's id.
    pub request_id: RequestId,
    /// Its session.
    pub session_id: SessionId,
    /// The agent that asked.
    pub agent: String,
    /// Who asks, as front ends label it ("research › summariser").
    pub origin: String,
    /// Where it stands.
    pub status: QuestionStatus,
    /// The AskUserQuestion input as the agent gave it.
    pub input: QuestionRequest,
    /// How it ended.
    pub outcome: Option<Outcome>,
    /// Where the person acted from.
    pub answered_via: Option<AnsweredVia>,
    /// Who answered, when a person signed in did.
    pub answered_by: Option<String>,
    /// Who asked, when a token or a person on a team server did.
    pub asked_by: Option<String>,
    /// What the agent received as its tool call's result, once resolved.
    pub result: Option<Value>,
    /// For an answered approval: `{"behavior": "allow", "updatedInput"}` or
    /// `{"behavior": "deny", "message"}`.
    pub decision: Option<beckon_core::PermissionDecision>,
    /// When it was asked (Unix ms).
    pub created_at: i64,
    /// When it was resolved (Unix ms).
    pub resolved_at: Option<i64>,
    /// When it expires (Unix ms).
    pub expires_at: Option<i64>,
    /// Where to answer it.
    pub answer_url: String,
    /// The link that opens it in the window.
    pub deep_link: String,
    /// For readers of version 1 (no `Beckon-Api-Version: 2`): the input again, under the name
    /// it had then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub questions: Option<QuestionRequest>,
    /// On an answer's reply: whether the same answer had been given before (nothing changed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<bool>,
}

impl QuestionView {
    /// Whether the question still waits for a person.
    pub fn is_pending(&self) -> bool {
        self.status == QuestionStatus::Pending
    }
}

/// A question just asked: where it stands and where to follow it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuestionCreated {
    /// The question's id.
    pub request_id: RequestId,
    /// Its session.
    pub session_id: SessionId,
    /// Pending, always: it was just asked.
    pub status: QuestionStatus,
    /// When it expires (Unix ms), if it does.
    pub expires_at: Option<i64>,
    /// Where to answer it.
    pub answer_url: String,
    /// Where to read it (and wait for it with `?wait=`).
    pub status_url: String,
    /// The link that opens it in the window.
    pub deep_link: String,
}

/// Questions, as `GET /v1/questions` lists them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestionList {
    /// The questions.
    pub questions: Vec<QuestionView>,
}

/// A session as the HTTP API shows it: its status, its result so far, and the question it
/// waits on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionReport {
    /// The session's id.
    pub id: SessionId,
    /// Its agent.
    pub agent: String,
    /// How it came to exist.
    pub origin: SessionOrigin,
    /// Its title.
    pub title: String,
    /// Where it stands.
    pub status: SessionStatus,
    /// Why it failed, when it did.
    pub failure: Option<String>,
    /// The agent's last words so far.
    pub result: Option<String>,
    /// How many questions it asked.
    pub questions_asked: usize,
    /// How many of them were answered.
    pub questions_answered: usize,
    /// The question it waits on.
    pub pending_question: Option<QuestionView>,
    /// When it started (Unix ms).
    pub created_at: i64,
    /// When it last changed (Unix ms).
    pub updated_at: i64,
}

/// A webhook agent's session, started (or found again by its idempotency key).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionTriggered {
    /// The session's id.
    pub session_id: SessionId,
    /// Where to follow it.
    pub status_url: String,
    /// Whether the key had started it before.
    pub repeat: bool,
}

/// The tokens, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenList {
    /// The tokens.
    pub tokens: Vec<TokenView>,
}

/// A token just revoked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenRevoked {
    /// The token.
    pub token: TokenView,
}

/// Who a request acts for (`GET /v1/me`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MeView {
    /// Whoever holds this Beckon's full token (the person who runs it; on a team server, the
    /// admin token). Named `person` on the wire, as it always was.
    #[serde(rename = "person")]
    Owner,
    /// An ask-only token.
    AskOnly {
        /// Its name.
        token: String,
    },
    /// A person signed in to a team server.
    Member {
        /// The identity provider's id for them.
        subject: String,
        /// Their email.
        email: Option<String>,
        /// Their name.
        name: Option<String>,
        /// Their groups.
        groups: Vec<String>,
        /// In the admin group: sees every question.
        admin: bool,
        /// What every write from their page carries in `X-CSRF-Token`.
        csrf_token: Option<String>,
    },
}

/// A person signed out (`POST /auth/logout`), and where the browser goes next.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedOut {
    /// Always true.
    pub signed_out: bool,
    /// The identity provider's own sign-out, or the signed-out page.
    pub next: String,
}

/// A person as the desktop app's sign-in gives them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PersonView {
    /// The identity provider's id for them.
    pub subject: String,
    /// Their email.
    pub email: Option<String>,
    /// Their name.
    pub name: Option<String>,
    /// Their groups.
    pub groups: Vec<String>,
}

/// The desktop app's session on a team server, for the code its sign-in came back with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppSession {
    /// The bearer token the app sends.
    pub token: String,
    /// When it ends (Unix ms).
    pub expires_at_ms: i64,
    /// Whom it acts for.
    pub person: PersonView,
}

/// Whether Beckon is up (`GET /v1/health`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Health {
    /// `ok`.
    pub status: String,
    /// Beckon's version.
    pub version: String,
    /// Where it keeps its data.
    pub database: String,
    /// How many questions wait.
    pub pending: usize,
}

/// Proof that the server knows a token, without the token (`GET /v1/proof`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proof {
    /// The challenge, keyed with the token.
    pub proof: String,
}

/// The notices shown now, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NoticeList {
    /// The notices.
    pub notices: Vec<Notice>,
}

/// A notice taken away (`DELETE /v1/notices/{key}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoticeCleared {
    /// The key, as given.
    pub key: String,
    /// Whether a notice was shown under it.
    pub cleared: bool,
}

/// A refusal as every route sends it: `{"error": {kind, message, …}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Refusal {
    /// What went wrong.
    pub error: ErrorBody,
}
