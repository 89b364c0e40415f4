//! The audit trail as front ends read it: one row per resolved question or approval — who
//! asked, what, how it ended, where from and by whom — and which rows to read.

use beckon_core::{AnsweredVia, RequestId};
use serde::{Deserialize, Serialize};

use crate::questions::QuestionStatus;

/// Longest one-line summary of what was asked, in characters.
pub const AUDIT_WHAT_MAX_CHARS: usize = 500;
/// Longest message (a denial, a reason, the answer in words), in characters.
pub const AUDIT_MESSAGE_MAX_CHARS: usize = 2000;

macro_rules! stored_names {
    ($(#[$meta:meta])* $vis:vis enum $ty:ident { $($(#[$vmeta:meta])* $variant:ident => $name:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        $vis enum $ty { $($(#[$vmeta])* $variant),+ }

        impl $ty {
            /// Every value.
            pub const ALL: &'static [$ty] = &[$($ty::$variant),+];

            /// The snake_case name, as stored and sent.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($ty::$variant => $name),+
                }
            }

            /// Reads the snake_case name.
            pub fn parse(text: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|v| v.as_str() == text)
            }
        }
    };
}

stored_names! {
    /// What was asked.
    pub enum AuditKind {
        /// A question with options.
        Question => "question",
        /// A tool call waiting for permission.
        Approval => "approval",
        /// A question with at least one free-form field (an MCP form).
        Form => "form",
    }
}

stored_names! {
    /// What was decided: for an approval the person answered, allow, allow always or deny; for
    /// anything else (and an approval declined, expired or cancelled), its final status.
    pub enum AuditDecision {
        /// The call was allowed once.
        Allow => "allow",
        /// The call was allowed, and the agent's suggested rules remembered.
        AllowAlways => "allow_always",
        /// The call was denied.
        Deny => "deny",
        /// The question was answered.
        Answered => "answered",
        /// It was declined.
        Declined => "declined",
        /// Its deadline passed.
        Expired => "expired",
        /// It was cancelled or withdrawn.
        Cancelled => "cancelled",
    }
}

stored_names! {
    /// Where the resolution came from: a front end the person used, a rule, or the question's
    /// own end (its agent withdrew it, its deadline passed, its session was cancelled).
    pub enum AuditVia {
        /// The app window.
        Window => "window",
        /// An OS notification.
        Notification => "notification",
        /// The tray menu.
        Tray => "tray",
        /// A `beckon://` link.
        DeepLink => "deep_link",
        /// The HTTP gateway.
        Http => "http",
        /// The MCP server.
        Mcp => "mcp",
        /// The `beckon` command.
        Cli => "cli",
        /// Slack.
        Slack => "slack",
        /// Telegram.
        Telegram => "telegram",
        /// A rule the person made.
        Rule => "rule",
        /// The external agent withdrew it: the person answered in its own terminal.
        Terminal => "terminal",
        /// Its deadline passed.
        Deadline => "deadline",
        /// Its session was cancelled.
        Cancelled => "cancelled",
    }
}

impl From<AnsweredVia> for AuditVia {
    fn from(via: AnsweredVia) -> Self {
        match via {
            AnsweredVia::Window => AuditVia::Window,
            AnsweredVia::Notification => AuditVia::Notification,
            AnsweredVia::Tray => AuditVia::Tray,
            AnsweredVia::DeepLink => AuditVia::DeepLink,
            AnsweredVia::Http => AuditVia::Http,
            AnsweredVia::Mcp => AuditVia::Mcp,
            AnsweredVia::Cli => AuditVia::Cli,
            AnsweredVia::Slack => AuditVia::Slack,
            AnsweredVia::Telegram => AuditVia::Telegram,
            AnsweredVia::Rule => AuditVia::Rule,
        }
    }
}

/// One resolved question or approval in the audit trail.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditRow {
    /// The row's id: rows are numbered in the order they were written.
    pub id: i64,
    /// The question.
    pub request_id: RequestId,
    /// What was asked.
    pub kind: AuditKind,
    /// The agent that asked.
    pub agent: String,
    /// The project folder an approval came from.
    pub project: Option<String>,
    /// The name of the ask-only token that asked (an agent on another machine).
    pub machine: Option<String>,
    /// The agent's own session id when it gave one, else Beckon's session id.
    pub session: String,
    /// One line on what was asked (at most [`AUDIT_WHAT_MAX_CHARS`]).
    pub what: String,
    /// Asked (Unix ms).
    pub asked_at_ms: i64,
    /// Resolved (Unix ms).
    pub resolved_at_ms: i64,
    /// Its final status.
    pub status: QuestionStatus,
    /// What was decided.
    pub decision: AuditDecision,
    /// Where from; `None` only for an answer whose resolver named no front end (every answer
    /// through the runtime names one).
    pub via: Option<AuditVia>,
    /// Who, when known ("slack:U1 (ada)", "rule 3").
    pub by: Option<String>,
    /// The rule that allowed it.
    pub rule_id: Option<i64>,
    /// The denial's message, the reason given, or the answer in words (at most
    /// [`AUDIT_MESSAGE_MAX_CHARS`]).
    pub message: Option<String>,
    /// For an allowed approval, the key of the rule that would cover calls like it: equal keys
    /// count as the same decision repeated.
    pub rule_key: Option<String>,
}

/// Which audit rows to read: those resolved in `[since_ms, until_ms)` by `agent`, after row
/// `after_id` (rows come in id order, so the last row's id reads the next page).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditFilter {
    /// Resolved at or after (Unix ms).
    #[serde(default)]
    pub since_ms: Option<i64>,
    /// Resolved before (Unix ms).
    #[serde(default)]
    pub until_ms: Option<i64>,
    /// Only this agent's.
    #[serde(default)]
    pub agent: Option<String>,
    /// Only rows after this id.
    #[serde(default)]
    pub after_id: Option<i64>,
}
