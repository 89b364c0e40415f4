//! Beckon's wire contract as types: what front ends and clients receive, the same over the
//! window, HTTP and MCP. Errors with their closed list of kinds, questions and how they end,
//! sessions and their pages, timeline entries, the kinds of event, figures, rules, the audit
//! trail, tokens as listed, what deciding questions gives back, a person's paired channels, Web
//! Push's subscriptions and messages, and the window's commands; and what a token's secret and
//! its hash give both ends (the proof key and the hint).
//!
//! Nothing here does I/O or names the store or the runtime, so a client links only this and
//! `beckon-core`. The store and the runtime re-export these types where they were first
//! defined, and add what needs them (reading rows, turning the runtime's errors into bodies).

mod audit;
mod channels;
mod decisions;
mod error_body;
mod events;
mod live;
mod metrics;
mod push;
mod questions;
mod rules;
mod sessions;
mod timeline;
pub mod token_secret;
mod tokens;
pub mod views;
pub mod window;

pub use audit::{
    AUDIT_MESSAGE_MAX_CHARS, AUDIT_WHAT_MAX_CHARS, AuditDecision, AuditFilter, AuditKind, AuditRow, AuditVia,
};
pub use channels::{ChannelPairingCode, PairedChannel};
pub use decisions::{AnswerReceipt, BatchDecision, BatchFailure, BatchReceipt};
pub use error_body::{ErrorBody, ErrorKind};
pub use events::EventKind;
pub use live::LiveEvent;
pub use metrics::{AgentMetrics, Latency, Metrics, Workload};
pub use push::{OfPushDevice, PushAction, PushKeys, PushMessage, PushOffer, PushSubscription};
pub use questions::{InboxEntry, PendingQuestion, QuestionRecord, QuestionStatus, ResolvedQuestion};
pub use rules::{RuleOffer, RuleRecord, RuleSource, rule_name};
pub use sessions::{SessionCursor, SessionPage, SessionRecord, SessionSummary, SessionView};
pub use timeline::TimelineEntry;
pub use tokens::{CreatedToken, TokenKind, TokenView};
pub use window::WindowSnapshot;
