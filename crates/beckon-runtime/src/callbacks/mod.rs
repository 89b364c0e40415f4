//! Callbacks to an agent's `callback_url`: built in the same transaction as the change they
//! report (the outbox), delivered after commit, several at a time but only a few per receiving
//! host, signed with the install's secret, retried with exponential backoff and jitter, each
//! with a stable idempotency key.
//!
//! A server facing a network sends them to public addresses only, and to the networks its
//! operator allows ([`CallbackDestinations`]).
//!
//! Receivers verify `Beckon-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`
//! with the secret shown in Beckon's settings (and by `beckon status --secret`), and drop
//! repeats by `Idempotency-Key`.

mod address;
mod delivery;
mod destinations;
mod in_flight;
mod secret;
mod slack;

use beckon_core::{Outcome, RequestId, SessionId};
use beckon_store::{CallbackFormat, CallbackKind, NewCallback, NewQuestion, OutboxEntry};
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

pub use address::{AddressKind, Network, classify};
pub use delivery::MAX_ATTEMPTS;
pub(crate) use delivery::{OUTBOX_WORK, Outbox, backoff, client, run};
pub(crate) use destinations::refusal_in;
pub use destinations::{CallbackDestinations, Refused};
pub(crate) use secret::CallbackSecret;
pub use secret::stored_secret;

/// The `Beckon-Signature` header value for `body` sent at `unix_seconds`.
pub fn signature(secret: &str, unix_seconds: i64, body: &[u8]) -> String {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret.as_bytes()).unwrap_or_else(|_| {
        // HMAC takes keys of any length; this branch cannot run.
        <Hmac<Sha256> as KeyInit>::new_from_slice(b"beckon").unwrap_or_else(|_| unreachable!())
    });
    mac.update(unix_seconds.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    format!("t={unix_seconds},v1={}", hex::encode(mac.finalize().into_bytes()))
}

/// A URL as logs may show it: scheme, host and port, never user, path, query or fragment.
pub(crate) fn origin(url: &str) -> String {
    let Ok(url) = reqwest::Url::parse(url) else { return "(not a URL)".into() };
    match (url.host_str(), url.port_or_known_default()) {
        (Some(host), Some(port)) => format!("{}://{host}:{port}", url.scheme()),
        (Some(host), None) => format!("{}://{host}", url.scheme()),
        (None, _) => format!("{}:(no host)", url.scheme()),
    }
}

/// The format of a callback URL: Slack incoming webhooks get Slack's block format.
fn format_of(url: &str) -> CallbackFormat {
    if url.starts_with("https://hooks.slack.com/") { CallbackFormat::Slack } else { CallbackFormat::Json }
}

/// Where a person answers a question: the gateway's answer endpoint, when it runs.
fn answer_url(base: Option<&str>, id: RequestId) -> Option<String> {
    base.map(|base| format!("{}/v1/questions/{id}/answer", base.trim_end_matches('/')))
}

/// The `question_pending` callback for a question being asked, if it has a callback URL.
pub(crate) fn for_pending(public_url: Option<&str>, url: Option<&str>, question: &NewQuestion) -> Vec<NewCallback> {
    let Some(url) = url else { return Vec::new() };
    let payload = json!({
        "event": CallbackKind::Pending.name(),
        "request_id": question.id,
        "session_id": question.session_id,
        "agent": question.agent,
        "origin": question.origin.to_string(),
        "questions": question.request,
        "created_at": question.at_ms,
        "expires_at": question.expires_at_ms,
        "answer_url": answer_url(public_url, question.id),
        "deep_link": format!("beckon://question/{}", question.id),
    });
    vec![NewCallback {
        idempotency_key: format!("{}:pending", question.id),
        target: url.to_owned(),
        format: format_of(url),
        kind: CallbackKind::Pending,
        payload,
    }]
}

/// The callback for a question's resolution (`question_answered`, `question_declined`,
/// `question_expired`, `question_cancelled`), if it has a callback URL.
pub(crate) fn for_resolved(
    url: Option<&str>,
    id: RequestId,
    session: SessionId,
    agent: &str,
    outcome: &Outcome,
) -> Vec<NewCallback> {
    let Some(url) = url else { return Vec::new() };
    let kind = CallbackKind::Resolved(outcome.kind());
    let payload = json!({
        "event": kind,
        "request_id": id,
        "session_id": session,
        "agent": agent,
        "outcome": outcome,
    });
    vec![NewCallback {
        idempotency_key: format!("{id}:resolved"),
        target: url.to_owned(),
        format: format_of(url),
        kind,
        payload,
    }]
}

/// The body sent for `entry`: a Slack message for Slack's webhooks and for the
/// Slack-compatible ones configured (`slack_webhooks`, URL prefixes), else the JSON payload.
fn body(entry: &OutboxEntry, slack_webhooks: &[String]) -> Value {
    let slack_compatible = slack_webhooks.iter().any(|prefix| entry.target.starts_with(prefix.as_str()));
    match entry.format {
        CallbackFormat::Slack => slack::message(entry),
        CallbackFormat::Json if slack_compatible => slack::message(entry),
        CallbackFormat::Json => entry.payload.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_are_hmac_sha256_of_time_dot_body() {
        // Known answer: HMAC-SHA256("secret", "1700000000.{}").
        let sig = signature("secret", 1_700_000_000, b"{}");
        assert_eq!(sig, "t=1700000000,v1=b8569b78799ff9e3cbff0fc2d63a33a2b57f3282abd07c37ae5e8e7d79a5f163");
        assert_ne!(sig, signature("secret", 1_700_000_000, b"{ }"));
        assert_ne!(sig, signature("other", 1_700_000_000, b"{}"));
        assert_eq!(sig, signature("secret", 1_700_000_000, b"{}"));
    }

    #[test]
    fn origins_keep_scheme_host_and_port_only() {
        assert_eq!(origin("https://hooks.slack.com/services/T0/B0/SECRET"), "https://hooks.slack.com:443");
        assert_eq!(origin("http://user:password@127.0.0.1:8080/hook?token=abc#frag"), "http://127.0.0.1:8080");
        assert_eq!(origin("http://[::1]:9000/x"), "http://[::1]:9000");
        assert_eq!(origin("http://example.com"), "http://example.com:80");
        assert_eq!(origin("HTTPS://Example.COM:8443/A/B"), "https://example.com:8443");
        assert_eq!(origin("not a url /with/a/path"), "(not a URL)");
        assert_eq!(origin("mailto:someone@example.com"), "mailto:(no host)");
    }

    #[test]
    fn slack_targets_get_blocks() {
        assert_eq!(format_of("https://hooks.slack.com/services/T/B/X"), CallbackFormat::Slack);
        assert_eq!(format_of("https://example.com/hook"), CallbackFormat::Json);
    }
}
