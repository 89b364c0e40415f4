//! Beckon's durable store: on SQLite for one person, on PostgreSQL for a team server.
//!
//! One person's store is one file (`beckon.db`) in WAL mode with `synchronous=FULL`, so an
//! answer a person was told is saved survives a power cut. A team server's is a PostgreSQL
//! database shared by several replicas ([`Store::connect`]); every operation is written once,
//! in the SQL both understand (`sql.rs`), and the same tests run on both. Each state change and every row it implies (question,
//! session status, timeline entry, event, callbacks) commit in one transaction, and events
//! carry a gap-free `seq` that front ends follow. The store is synchronous and never reads the
//! clock: times are passed in.

mod audiences;
mod audit;
mod channel_messages;
mod channel_people;
mod codec;
mod error;
mod event_payload;
mod events;
mod leases;
mod messages;
mod metrics;
mod open;
mod outbox;
mod pairing_misses;
mod people;
mod pg;
mod pg_client;
mod pg_tls;
mod push;
mod questions;
mod read;
mod rows;
mod rules;
mod sequencer;
mod sessions;
mod settings;
mod sql;
mod store;
#[cfg(feature = "testing")]
pub mod testing;
mod tokens;

pub use audit::AUDIT_PAGE_MAX;
pub use codec::{JSON_MAX_BYTES, STATE_MAX_BYTES};
pub use error::{Error, Result};
pub use event_payload::{Appended, EventPayload, NoDetails, QuestionResolved, SessionStarted, StatusChanged};
pub use open::SCHEMA_VERSION;
pub use pg::{EventListener, POSTGRES_SCHEMA_VERSION};
pub use pg_tls::trusting;
pub use read::Reader;
pub use rows::{
    AUDIT_MESSAGE_MAX_CHARS, AUDIT_WHAT_MAX_CHARS, AgentMetrics, AuditDecision, AuditFilter, AuditKind, AuditRow,
    AuditShare, AuditVia, CallbackFormat, CallbackKind, ChannelMessage, ChannelMessageState, ChannelPerson,
    ChannelScope, ChannelWork, Deadline, DeliveryState, DueCursor, EventKind, InboxEntry, Latency, Lease,
    ListedSession, Metrics, NewCallback, NewQuestion, NewSession, NewSignIn, NewToken, OutboxEntry, PendingQuestion,
    PersonSession, PushAttempt, PushDevice, PushDue, PushState, QuestionRecord, QuestionStatus, Resolution, Resolved,
    ResolvedQuestion, RuleOffer, RuleRecord, RuleSource, SessionCursor, SessionFilter, SessionKind, SessionPage,
    SessionRecord, SessionSummary, SignedIn, StoredEvent, TakenSignIn, TimelineEntry, TokenId, TokenKind, TokenRecord,
    Workload, rule_name, title_from,
};
pub use sql::EVENTS_CHANNEL;
pub use store::{Committed, Store, Tx, Written};
