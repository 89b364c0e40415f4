//! What the store's operations take and return: each table's rows (as stored, as listed, as
//! written), the events of the log, the figures, with the names they are stored under. Nothing
//! here touches a database or names a file outside this folder, so every other file may use these
//! types and none of them leads back: the tables' files hold only the queries.

mod audit;
mod channel_messages;
mod events;
mod leases;
mod messages;
mod metrics;
mod outbox;
mod people;
mod questions;
mod rules;
mod sessions;
mod tokens;

pub use audit::{
    AUDIT_MESSAGE_MAX_CHARS, AUDIT_WHAT_MAX_CHARS, AuditDecision, AuditFilter, AuditKind, AuditRow, AuditShare,
    AuditVia,
};
pub use channel_messages::{ChannelMessage, ChannelMessageState, ChannelScope, ChannelWork};
pub use events::{EventKind, StoredEvent};
pub use leases::Lease;
pub use messages::TimelineEntry;
pub use metrics::{AgentMetrics, Latency, Metrics, Workload};
pub use outbox::{CallbackFormat, DeliveryState, DueCursor, NewCallback, OutboxEntry};
pub use people::{ChannelPerson, ListedSession, NewSignIn, PersonSession, SessionKind, SignedIn, TakenSignIn};
pub use questions::{
    Deadline, InboxEntry, NewQuestion, PendingQuestion, QuestionRecord, QuestionStatus, Resolution, Resolved,
    ResolvedQuestion,
};
pub use rules::{RuleOffer, RuleRecord, RuleSource, rule_name};
pub use sessions::{NewSession, SessionCursor, SessionFilter, SessionPage, SessionRecord, SessionSummary, title_from};
pub use tokens::{NewToken, TokenId, TokenKind, TokenRecord};
