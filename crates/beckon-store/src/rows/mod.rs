//! What the store's operations take and return: each table's rows (as stored, as listed, as
//! written), the events of the log, the figures, with the names they are stored under. Nothing
//! here touches a database or names a file outside this folder, so every other file may use these
//! types and none of them leads back: the tables' files hold only the queries.
//!
//! The rows front ends and clients receive (questions, sessions, timeline entries, event kinds,
//! figures, rules, audit rows, token kinds) are beckon-api's, the wire contract, and re-exported
//! here; what only the store takes or keeps (what to write, which rows to read, leases, the
//! outbox, people's sign-ins) is defined here.

mod audit;
mod channel_messages;
mod events;
mod leases;
mod outbox;
mod people;
mod push;
mod questions;
mod sessions;
mod tokens;

pub use audit::AuditShare;
pub use beckon_api::{
    AUDIT_MESSAGE_MAX_CHARS, AUDIT_WHAT_MAX_CHARS, AgentMetrics, AuditDecision, AuditFilter, AuditKind, AuditRow,
    AuditVia, EventKind, InboxEntry, Latency, Metrics, PendingQuestion, QuestionRecord, QuestionStatus,
    ResolvedQuestion, RuleOffer, RuleRecord, RuleSource, SessionCursor, SessionPage, SessionRecord, SessionSummary,
    TimelineEntry, TokenKind, Workload, rule_name,
};
pub use channel_messages::{ChannelMessage, ChannelMessageState, ChannelScope, ChannelWork};
pub use events::StoredEvent;
pub use leases::Lease;
pub use outbox::{CallbackFormat, CallbackKind, DeliveryState, DueCursor, NewCallback, OutboxEntry};
pub use people::{ChannelPerson, ListedSession, NewSignIn, PersonSession, SessionKind, SignedIn, TakenSignIn};
pub use push::{PushAttempt, PushDevice, PushDue, PushState};
pub use questions::{Deadline, NewQuestion, Resolution, Resolved};
pub use sessions::{NewSession, SessionFilter, title_from};
pub use tokens::{NewToken, TokenId, TokenRecord};
