//! Beckon's runtime: it runs agent sessions, stops each one when its agent asks a person a
//! question, and resumes it — with the answer as the result of that exact tool call — when the
//! person answers from any front end, minutes or days later. It also serves the agents Beckon
//! does not run (external agents), delivers signed callbacks, and publishes every change as an
//! event front ends follow.
//!
//! Every front end (window, tray, notification, deep link, HTTP, MCP, CLI) calls the same
//! [`Beckon`] service handle; no business rule lives in a front end.

pub mod agents;
pub mod api;
mod boot;
pub mod callbacks;
mod channel_outbox;
mod clock;
mod clock_access;
mod config;
mod db;
mod deadlines;
mod error;
mod events;
mod executor;
mod expiry;
mod external;
pub mod http_error;
mod leases;
mod live_rules;
mod live_tokens;
mod lock;
mod notices;
mod notifier;
pub mod providers;
mod public_url;
mod push;
mod retention;
mod runtime;
mod service;
pub mod settings;
mod shared_log;
mod stop;
mod team;
pub mod tools;

pub use beckon_api::{token_secret, window_commands};
// Files only their owner may read are written the same by the server (gateway.json, settings)
// and by clients (the connection file), so they live with the clients.
pub use beckon_client::{private_file, private_folder};
pub use boot::StartOptions;
pub use channel_outbox::ChannelOutbox;
pub use clock::{Clock, ManualClock, Sleep, SystemClock, now_ms};
pub use config::{
    APP_ID, DATABASE_URL_ENV, DEFAULT_AUDIT_DAYS, ProviderSettings, RuntimeConfig, SCRIPTS_MAY_APPROVE_ENV,
    SLACK_WEBHOOKS_ENV, app_data_dir, default_data_dir, scripts_may_approve_from_env,
};
pub use error::{Error, Result};
pub use events::{Subscription, TextDelta};
pub use external::{AskingPerson, ExternalAsk, ExternalAsked};
pub use leases::{DEFAULT_LEASE, SHORTEST_LEASE};
pub use live_tokens::TokenHolder;
pub use lock::DataDirLock;
pub use notices::MAX_LIVE_NOTICES;
pub use notifier::{Notifier, PendingNotice, Recorded, RecordingNotifier, ResolvedNotice, Silent};
pub use service::{
    AUDIT_STREAM_CAPACITY, AgentRoster, AnswerReceipt, Asker, Audit, BATCH_MAX, BatchDecision, BatchFailure,
    BatchReceipt, Beckon, Begun, ChannelPairing, ChannelPairingCode, Configuration, Decision, Events, Health, Inbox,
    OpenedSession, PairedChannel, Pairings, People, PushDevices, Rules, SIGN_IN_LIFETIME_MS, SessionView,
    SignedInSession, StoreCounts, Tokens, WindowSnapshot, WrongCodeLimit, csrf_token, pairing_code,
};
pub use settings::Settings;
