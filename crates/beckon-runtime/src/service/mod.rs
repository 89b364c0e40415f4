//! The service API every front end calls: the [`Beckon`] handle, its methods grouped by what
//! callers do with it.
//!
//! - [`handle`]: starting, recovering and stopping a runtime;
//! - [`answers`]: the one way a question is answered, declined or withdrawn;
//! - [`plan`]: what one decision on one question will write, or why it is refused;
//! - [`audiences`]: whose questions and sessions are on a team server;
//! - [`audit`]: the audit trail of every decision;
//! - [`channel_people`]: people on a team server pairing their own Slack member or Telegram chat;
//! - [`batch`]: deciding many questions at once;
//! - [`sessions`]: starting, messaging and cancelling sessions;
//! - [`reads`]: what front ends show (inbox, questions, sessions, figures, events);
//! - [`rules`]: rules that allow on the person's behalf, and the ones Beckon offers;
//! - [`configure`]: what the settings change while Beckon runs;
//! - [`outside`]: agents Beckon does not run (their questions and notices);
//! - [`pairing_guesses`]: how many wrong pairing codes a channel takes;
//! - [`people`]: people signed in on a team server, and their browser sessions;
//! - [`push_devices`]: the browsers they have their questions pushed to;
//! - [`tokens`]: tokens for agents on other machines, and checking a request's token.

mod agent_roster;
mod answers;
mod audiences;
mod audit;
mod batch;
mod channel_people;
mod configure;
mod handle;
mod health;
mod live_events;
mod outside;
mod pairing_guesses;
mod people;
mod plan;
mod push_devices;
mod reads;
mod rules;
mod sessions;
mod tokens;

pub use agent_roster::AgentRoster;
pub use audit::{AUDIT_STREAM_CAPACITY, Audit};
pub use batch::BATCH_MAX;
pub use beckon_api::{
    AnswerReceipt, BatchDecision, BatchFailure, BatchReceipt, ChannelPairingCode, PairedChannel, SessionView,
    WindowSnapshot,
};
pub use channel_people::{ChannelPairing, Pairings, pairing_code};
pub use configure::Configuration;
pub use handle::Beckon;
pub use health::{Health, StoreCounts};
pub use live_events::Events;
pub use pairing_guesses::WrongCodeLimit;
pub use people::{OpenedSession, People, SIGN_IN_LIFETIME_MS, SignedInSession, csrf_token};
pub use plan::Decision;
pub use push_devices::PushDevices;
pub use reads::Inbox;
pub use rules::Rules;
pub use sessions::Begun;
pub use tokens::{Asker, Tokens};
