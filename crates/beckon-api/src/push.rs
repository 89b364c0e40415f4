//! Web Push on a team server: what a browser subscribes with, what it hands the server, and the
//! message a push carries to its service worker (encrypted on the way: the push service sees
//! only ciphertext).

use serde::{Deserialize, Serialize};

/// What a browser subscribes to this server's pushes with.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PushOffer {
    /// The server's VAPID public key (RFC 8292): an uncompressed P-256 point, base64url, as
    /// `pushManager.subscribe`'s `applicationServerKey` takes it.
    pub application_server_key: String,
}

/// A browser's push subscription, as `PushSubscription.toJSON()` gives it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PushSubscription {
    /// The push service's URL for this browser (https).
    pub endpoint: String,
    /// When the push service lets it lapse (Unix ms), if it says.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub expiration_time: Option<f64>,
    /// The browser's keys for encrypting what is pushed to it (RFC 8291).
    pub keys: PushKeys,
}

impl std::fmt::Debug for PushSubscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The endpoint lets whoever holds it push to the browser: never in a log.
        f.debug_struct("PushSubscription").finish_non_exhaustive()
    }
}

/// A browser's keys for Web Push encryption, base64url as the browser gives them.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PushKeys {
    /// Its P-256 public key, uncompressed (65 bytes).
    pub p256dh: String,
    /// Its authentication secret (16 bytes).
    pub auth: String,
}

impl std::fmt::Debug for PushKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The secret lets whoever holds it read what is pushed to the browser.
        f.debug_struct("PushKeys").field("p256dh", &self.p256dh).finish_non_exhaustive()
    }
}

/// A browser's push subscription, by its endpoint.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OfPushDevice {
    /// The push service's URL for the browser.
    pub endpoint: String,
}

impl std::fmt::Debug for OfPushDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OfPushDevice").finish_non_exhaustive()
    }
}

/// What a push tells the service worker to show.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PushMessage {
    /// One question: its notification, with a button per answer it may be given from there.
    Question {
        /// The question's id (the notification's tag, so one question shows once).
        request_id: String,
        /// "<agent> asks: <header>".
        title: String,
        /// The question, or what an approval would allow.
        body: String,
        /// The answers offered on the notification, in order.
        actions: Vec<PushAction>,
    },
    /// Many questions from one agent at once, counted: it opens the inbox.
    Waiting {
        /// Which agent and project the count is of (the notification's tag, so a later count
        /// replaces it).
        tag: String,
        /// "claude-code in shop: 12 approvals waiting".
        title: String,
        /// What to do about them.
        body: String,
    },
}

/// A button on a question's notification: it answers with one option.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushAction {
    /// The button's key: `answer:<index of the option>`.
    pub action: String,
    /// What the button says.
    pub title: String,
    /// The option's whole label, which the answer names.
    pub label: String,
}
