//! A browser's push subscription, checked before it is kept: a push service's URL (https; plain
//! http only on this machine's loopback), and keys a browser would give (a P-256 point and a
//! 16-byte secret).

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use beckon_api::PushSubscription;
use beckon_core::Problems;
use beckon_store::PushDevice;

use crate::error::{Error, Result};

/// The longest endpoint accepted, in bytes (push services' are a few hundred).
const ENDPOINT_MAX_BYTES: usize = 2_048;
/// The longest key accepted, in characters (a P-256 point is 87 in base64url).
const KEY_MAX_CHARS: usize = 128;

/// Base64url, with or without its padding, as browsers and libraries write it.
pub(crate) fn decode(text: &str) -> Option<Vec<u8>> {
    if text.len() > KEY_MAX_CHARS {
        return None;
    }
    URL_SAFE_NO_PAD.decode(text.trim_end_matches('=')).ok()
}

/// Whether `url` is a push service's: https, or http to a loopback address (a push service on
/// this machine); never with a user or password in it.
fn endpoint_problem(endpoint: &str) -> Option<String> {
    if endpoint.len() > ENDPOINT_MAX_BYTES {
        return Some(format!("is longer than {ENDPOINT_MAX_BYTES} bytes"));
    }
    let Ok(url) = reqwest::Url::parse(endpoint) else { return Some("is not a URL".into()) };
    if !url.username().is_empty() || url.password().is_some() {
        return Some("must not carry a user or password".into());
    }
    let loopback = match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        None => return Some("names no host".into()),
    };
    match url.scheme() {
        "https" => None,
        "http" if loopback => None,
        _ => Some("must be an https URL (a push service's)".into()),
    }
}

/// The device `subscription` describes, for `subject`'s sign-in `session_hash`, added at `now_ms`.
pub(crate) fn device(
    subscription: PushSubscription,
    session_hash: [u8; 32],
    subject: &str,
    now_ms: i64,
) -> Result<PushDevice> {
    let mut problems = Problems::new();
    if let Some(problem) = endpoint_problem(&subscription.endpoint) {
        problems.push("endpoint", problem);
    }
    let point = decode(&subscription.keys.p256dh)
        .filter(|bytes| bytes.len() == 65 && web_push_native::p256::PublicKey::from_sec1_bytes(bytes).is_ok());
    if point.is_none() {
        problems.push("keys.p256dh", "must be an uncompressed P-256 public key, base64url (65 bytes)");
    }
    if decode(&subscription.keys.auth).is_none_or(|secret| secret.len() != 16) {
        problems.push("keys.auth", "must be a 16-byte authentication secret, base64url");
    }
    if !problems.is_empty() {
        return Err(Error::InvalidInput(problems));
    }
    Ok(PushDevice {
        endpoint: subscription.endpoint,
        session_hash,
        subject: subject.to_owned(),
        p256dh: subscription.keys.p256dh.trim_end_matches('=').to_owned(),
        auth: subscription.keys.auth.trim_end_matches('=').to_owned(),
        created_at_ms: now_ms,
    })
}

#[cfg(test)]
mod tests {
    use beckon_api::PushKeys;

    use super::*;

    /// A browser's keys: a real P-256 point and a 16-byte secret.
    fn keys() -> PushKeys {
        let secret = web_push_native::p256::SecretKey::from_slice(&[7; 32]).unwrap();
        let point =
            web_push_native::p256::elliptic_curve::sec1::ToEncodedPoint::to_encoded_point(&secret.public_key(), false);
        PushKeys { p256dh: URL_SAFE_NO_PAD.encode(point.as_bytes()), auth: URL_SAFE_NO_PAD.encode([9u8; 16]) }
    }

    fn subscription(endpoint: &str, keys: PushKeys) -> PushSubscription {
        PushSubscription { endpoint: endpoint.into(), expiration_time: None, keys }
    }

    fn fields(err: Error) -> Vec<String> {
        let Error::InvalidInput(problems) = err else { panic!("{err}") };
        problems.iter().map(|p| p.path.clone()).collect()
    }

    #[test]
    fn a_browsers_subscription_is_kept_as_given() {
        let padded = PushKeys { auth: format!("{}==", keys().auth), ..keys() };
        let kept = device(subscription("https://fcm.googleapis.com/fcm/send/abc", padded), [1; 32], "ada", 5).unwrap();
        assert_eq!((kept.subject.as_str(), kept.created_at_ms), ("ada", 5));
        assert_eq!(kept.auth, keys().auth, "kept without padding");
        for endpoint in ["http://127.0.0.1:9000/push/1", "http://[::1]:9000/p", "http://localhost:1/p"] {
            assert!(device(subscription(endpoint, keys()), [1; 32], "ada", 5).is_ok(), "{endpoint}");
        }
    }

    #[test]
    fn what_is_not_a_push_services_url_or_a_browsers_keys_is_refused_by_field() {
        for endpoint in [
            "http://push.example.com/x",
            "ftp://push.example.com/x",
            "https://user:pw@push.example.com/x",
            "not a url",
            "http://10.0.0.1/x",
        ] {
            assert_eq!(fields(device(subscription(endpoint, keys()), [1; 32], "ada", 5).unwrap_err()), ["endpoint"]);
        }
        let long = format!("https://push.example.com/{}", "x".repeat(ENDPOINT_MAX_BYTES));
        assert_eq!(fields(device(subscription(&long, keys()), [1; 32], "ada", 5).unwrap_err()), ["endpoint"]);
        let off_curve = PushKeys { p256dh: URL_SAFE_NO_PAD.encode([4u8; 65]), ..keys() };
        let short_secret = PushKeys { auth: URL_SAFE_NO_PAD.encode([1u8; 8]), ..keys() };
        let not_base64 = PushKeys { p256dh: "%%%".into(), auth: "%%%".into() };
        let url = "https://push.example.com/x";
        assert_eq!(fields(device(subscription(url, off_curve), [1; 32], "ada", 5).unwrap_err()), ["keys.p256dh"]);
        assert_eq!(fields(device(subscription(url, short_secret), [1; 32], "ada", 5).unwrap_err()), ["keys.auth"]);
        assert_eq!(
            fields(device(subscription(url, not_base64), [1; 32], "ada", 5).unwrap_err()),
            ["keys.p256dh", "keys.auth"]
        );
    }
}
