//! Turning what a provider's server refused or reported into a [`ProviderError`] a person can
//! act on: the kind decides whether the state machine retries, the message names the
//! provider, the HTTP status and the server's own words.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use serde_json::Value;

use crate::providers::{ProviderError, ProviderErrorKind};

/// The most characters of a server's message quoted in an error.
const MAX_QUOTED_CHARS: usize = 500;

/// Who was asked what, for error messages.
#[derive(Debug, Clone)]
pub(in crate::providers) struct Peer {
    /// How messages name the provider: "Anthropic", "OpenAI", "the OpenAI-compatible server at …".
    pub(in crate::providers) provider: String,
    /// The address the request went to.
    pub(in crate::providers) endpoint: String,
    /// The model asked for, named when the server does not know it.
    pub(in crate::providers) model: String,
    /// What to do about a rejected or missing key.
    pub(in crate::providers) key_hint: String,
}

/// What a server said about a failure: its error type or code, and its message.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(in crate::providers) struct ServerMessage {
    /// `error.code` when it is a string, else `error.type` (`authentication_error`, …).
    pub(in crate::providers) kind: Option<String>,
    /// `error.message`, or the body's text when it is not the JSON error shape.
    pub(in crate::providers) text: String,
}

impl ServerMessage {
    /// Reads an error body: the `{"error": {"type", "code", "message"}}` shape of Anthropic and
    /// OpenAI, `{"error": "…"}` (Ollama's native errors), `{"message", "type"}` (vLLM) and
    /// `{"detail": …}` (FastAPI servers); anything else is quoted as text.
    pub(in crate::providers) fn from_body(body: &[u8]) -> Self {
        match serde_json::from_slice::<Value>(body) {
            Ok(json) => Self::from_json(&json)
                .unwrap_or_else(|| Self { kind: None, text: quote(&String::from_utf8_lossy(body)) }),
            Err(_) => Self { kind: None, text: quote(&String::from_utf8_lossy(body)) },
        }
    }

    /// Reads an error object, or a body holding one under `error`. None when it says nothing.
    pub(in crate::providers) fn from_json(json: &Value) -> Option<Self> {
        let error = match json.get("error") {
            Some(Value::String(text)) => return Some(Self { kind: None, text: quote(text) }),
            Some(inner @ Value::Object(_)) => inner,
            _ => json,
        };
        let text = match error.get("message").or_else(|| error.get("detail")) {
            Some(Value::String(text)) => quote(text),
            Some(other @ (Value::Array(_) | Value::Object(_))) => quote(&other.to_string()),
            _ => String::new(),
        };
        let kind = [error.get("code"), error.get("type")]
            .into_iter()
            .flatten()
            .find_map(|value| value.as_str().filter(|kind| !kind.is_empty()))
            .map(str::to_owned);
        (kind.is_some() || !text.is_empty()).then_some(Self { kind, text })
    }

    /// The numeric `code` some servers (llama.cpp, vLLM) put in an error object: an HTTP status.
    fn numeric_code(json: &Value) -> Option<u16> {
        let error = json.get("error").filter(|error| error.is_object()).unwrap_or(json);
        error.get("code").and_then(Value::as_u64).and_then(|code| u16::try_from(code).ok())
    }
}

impl fmt::Display for ServerMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.kind, self.text.is_empty()) {
            (Some(kind), false) => write!(f, "{kind}: {}", self.text),
            (Some(kind), true) => f.write_str(kind),
            (None, _) => f.write_str(&self.text),
        }
    }
}

/// The error for a reply with a failure status. `body` is the start of the reply's body.
pub(in crate::providers) fn from_status(
    peer: &Peer,
    status: StatusCode,
    headers: &HeaderMap,
    body: &[u8],
    now: SystemTime,
) -> ProviderError {
    let said = ServerMessage::from_body(body);
    let code = status.as_u16();
    let detail = match (said.to_string(), status.canonical_reason()) {
        (said, _) if !said.is_empty() => format!("{code} {said}"),
        (_, Some(reason)) => format!("{code} {reason}"),
        (_, None) => code.to_string(),
    };
    let p = &peer.provider;
    let retry_after = retry_after(headers, now);
    let (kind, mut message) = match code {
        401 => (ProviderErrorKind::Auth, format!("{p} rejected the API key ({detail}); {}", peer.key_hint)),
        403 => (ProviderErrorKind::Auth, format!("{p} refused access with this API key ({detail}); {}", peer.key_hint)),
        402 => (
            ProviderErrorKind::Auth,
            format!("{p} refused the request for billing reasons ({detail}); check the account's plan and credit"),
        ),
        // A spent quota does not come back by waiting a minute; retrying would only delay the
        // message the person needs.
        429 if said.kind.as_deref() == Some("insufficient_quota") => (
            ProviderErrorKind::Auth,
            format!("{p} refused the request: the account's quota is used up ({detail}); check its plan and billing"),
        ),
        429 => (ProviderErrorKind::RateLimited, format!("{p} is rate limiting requests ({detail})")),
        404 if said.to_string().to_lowercase().contains("model") => (
            ProviderErrorKind::BadRequest,
            format!("{p} does not know the model \"{}\" ({detail}); check the agent's model", peer.model),
        ),
        404 => (
            ProviderErrorKind::BadRequest,
            format!(
                "{p} does not know the model \"{}\" or has no API at {} ({detail}); check the agent's model and \
                 the provider's base URL",
                peer.model, peer.endpoint
            ),
        ),
        413 => (
            ProviderErrorKind::BadRequest,
            format!("{p} refused the request as too large ({detail}); the conversation may need to be shorter"),
        ),
        // Following a redirect would send the API key to whatever address it names.
        300..=399 => (
            ProviderErrorKind::Protocol,
            format!(
                "{p} answered with a redirect ({detail}); Beckon does not follow a provider's redirects, which would \
                 send the API key elsewhere: check the provider's base URL"
            ),
        ),
        408 | 409 => (ProviderErrorKind::Server, format!("{p} could not handle the request now ({detail})")),
        400..=499 => (ProviderErrorKind::BadRequest, format!("{p} refused the request as invalid ({detail})")),
        503 | 529 => (ProviderErrorKind::Server, format!("{p} is overloaded ({detail})")),
        500..=599 => (ProviderErrorKind::Server, format!("{p} failed with a server error ({detail})")),
        _ => (ProviderErrorKind::Protocol, format!("{p} answered with an unexpected HTTP status ({detail})")),
    };
    if let Some(wait) = retry_after.filter(|_| kind == ProviderErrorKind::RateLimited) {
        message.push_str(&format!("; it asked to wait {}", seconds(wait)));
    }
    if let Some(id) = request_id(headers) {
        message.push_str(&format!(" [request id {id}]"));
    }
    ProviderError { retry_after, ..error(kind, message) }
}

/// The error for an error object the server sent inside a stream that had started well
/// (an Anthropic `error` event, an OpenAI chunk with `error`).
pub(in crate::providers) fn from_stream_error(peer: &Peer, reported: &Value) -> ProviderError {
    let p = &peer.provider;
    let Some(said) = ServerMessage::from_json(reported) else {
        let shown = quote(&reported.to_string());
        return error(
            ProviderErrorKind::Protocol,
            format!("{p} reported an error mid-reply that cannot be read: {shown}"),
        );
    };
    let kind = match (said.kind.as_deref().unwrap_or_default(), ServerMessage::numeric_code(reported)) {
        (kind, _) if kind.contains("rate_limit") => ProviderErrorKind::RateLimited,
        (
            "authentication_error" | "permission_error" | "billing_error" | "invalid_api_key" | "insufficient_quota",
            _,
        )
        | (_, Some(401..=403)) => ProviderErrorKind::Auth,
        ("invalid_request_error" | "not_found_error" | "request_too_large" | "context_length_exceeded", _) => {
            ProviderErrorKind::BadRequest
        }
        (_, Some(429)) => ProviderErrorKind::RateLimited,
        (_, Some(400..=499)) => ProviderErrorKind::BadRequest,
        // Overloaded, api_error, server_error, timeouts and anything new: the server failed.
        _ => ProviderErrorKind::Server,
    };
    error(kind, format!("{p} reported an error mid-reply ({said})"))
}

/// The error for a request that never got an answer: no connection, a broken one, a timeout.
pub(in crate::providers) fn from_transport(peer: &Peer, failed: reqwest::Error) -> ProviderError {
    let (kind, what) = if failed.is_builder() {
        (ProviderErrorKind::BadRequest, "could not send a request to")
    } else {
        (ProviderErrorKind::Network, "could not reach")
    };
    error(kind, format!("{what} {} ({}): {}", peer.provider, peer.endpoint, crate::http_error::describe(failed)))
}

/// How long the server asked us to wait: `retry-after-ms` (OpenAI), or `retry-after` as
/// seconds (integer or decimal) or an HTTP date.
pub(in crate::providers) fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let header = |name: &str| headers.get(name).and_then(|value| value.to_str().ok()).map(str::trim);
    if let Some(millis) = header("retry-after-ms").and_then(|ms| ms.parse::<f64>().ok()) {
        return Duration::try_from_secs_f64(millis / 1000.0).ok();
    }
    let value = header("retry-after")?;
    if let Ok(seconds) = value.parse::<f64>() {
        return Duration::try_from_secs_f64(seconds).ok();
    }
    let at = UNIX_EPOCH + Duration::from_secs(parse_http_date(value)?);
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Seconds since the Unix epoch of an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the
/// HTTP date form servers send today; the two obsolete forms are not read.
fn parse_http_date(text: &str) -> Option<u64> {
    let (_weekday, rest) = text.split_once(", ")?;
    let parts: Vec<&str> = rest.split(' ').collect();
    let [day, month, year, time, "GMT"] = parts[..] else { return None };
    let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        .iter()
        .position(|name| *name == month)?;
    let [hour, minute, second] = time.split(':').collect::<Vec<_>>()[..] else { return None };
    let number = |text: &str, max: u64| text.parse::<u64>().ok().filter(|n| *n <= max);
    let (day, year) = (number(day, 31)?, number(year, 9999)?);
    let (hour, minute, second) = (number(hour, 23)?, number(minute, 59)?, number(second, 60)?);
    if day == 0 || year < 1970 {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm), with March as the year's first month.
    let month = month as u64 + 1;
    let year = if month <= 2 { year - 1 } else { year };
    let era = year / 400;
    let year_of_era = year - era * 400;
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    let days = (era * 146_097 + day_of_era).checked_sub(719_468)?;
    Some(days * 86_400 + hour * 3_600 + minute * 60 + second)
}

/// The request id the server gave (Anthropic's `request-id`, OpenAI's `x-request-id`), for
/// support requests.
fn request_id(headers: &HeaderMap) -> Option<String> {
    ["request-id", "x-request-id"]
        .into_iter()
        .find_map(|name| headers.get(name)?.to_str().ok())
        .filter(|id| !id.is_empty() && id.len() <= 100)
        .map(str::to_owned)
}

/// An error whose message starts with a capital letter, whatever the provider's label.
pub(in crate::providers) fn error(kind: ProviderErrorKind, message: impl Into<String>) -> ProviderError {
    let message = message.into();
    let mut chars = message.chars();
    let message = match chars.next() {
        Some(first) if first.is_lowercase() => first.to_uppercase().chain(chars).collect(),
        _ => message,
    };
    ProviderError::new(kind, message)
}

/// A duration as a person reads it: "7 s", "1.5 s".
pub(in crate::providers) fn seconds(duration: Duration) -> String {
    let seconds = duration.as_secs_f64();
    if seconds.fract() == 0.0 { format!("{seconds:.0} s") } else { format!("{seconds:.1} s") }
}

/// A server's text, trimmed and cut to a length fit for an error message.
pub(in crate::providers) fn quote(text: &str) -> String {
    let text = text.trim();
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(MAX_QUOTED_CHARS).collect();
    if chars.next().is_some() { format!("{head}…") } else { head }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn peer() -> Peer {
        Peer {
            provider: "Anthropic".into(),
            endpoint: "https://api.anthropic.com/v1/messages".into(),
            model: "claude-x".into(),
            key_hint: "check the key".into(),
        }
    }

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_static(value));
        }
        map
    }

    fn status_error(code: u16, pairs: &[(&'static str, &'static str)], body: &str) -> ProviderError {
        let status = StatusCode::from_u16(code).unwrap();
        from_status(&peer(), status, &headers(pairs), body.as_bytes(), UNIX_EPOCH)
    }

    #[test]
    fn anthropic_auth_errors_name_the_status_type_and_message() {
        let body = r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#;
        let error = status_error(401, &[("request-id", "req_1")], body);
        assert_eq!(error.kind, ProviderErrorKind::Auth);
        assert_eq!(
            error.message,
            "Anthropic rejected the API key (401 authentication_error: invalid x-api-key); check the key \
             [request id req_1]"
        );
    }

    #[test]
    fn openai_codes_are_preferred_to_types() {
        let body =
            r#"{"error":{"message":"Incorrect API key","type":"invalid_request_error","code":"invalid_api_key"}}"#;
        assert_eq!(
            ServerMessage::from_body(body.as_bytes()),
            ServerMessage { kind: Some("invalid_api_key".into()), text: "Incorrect API key".into() }
        );
    }

    #[test]
    fn other_error_shapes_are_read() {
        let read = |body: &str| ServerMessage::from_body(body.as_bytes()).to_string();
        assert_eq!(read(r#"{"error":"model \"x\" not found"}"#), r#"model "x" not found"#);
        assert_eq!(
            read(r#"{"object":"error","message":"no such model","type":"NotFoundError","code":404}"#),
            "NotFoundError: no such model"
        );
        assert_eq!(read(r#"{"detail":"Not Found"}"#), "Not Found");
        assert_eq!(read("<html>Bad gateway</html>\n"), "<html>Bad gateway</html>");
        assert_eq!(read(""), "");
    }

    #[test]
    fn long_server_messages_are_cut() {
        let body = format!(r#"{{"error":{{"message":"{}"}}}}"#, "x".repeat(2000));
        let error = status_error(400, &[], &body);
        assert!(error.message.contains(&format!("{}…", "x".repeat(MAX_QUOTED_CHARS))));
        assert!(error.message.len() < 700, "{}", error.message.len());
    }

    #[test]
    fn an_empty_body_falls_back_to_the_reason_phrase() {
        let error = status_error(502, &[], "");
        assert_eq!(error.kind, ProviderErrorKind::Server);
        assert_eq!(error.message, "Anthropic failed with a server error (502 Bad Gateway)");
    }

    #[test]
    fn statuses_map_to_kinds() {
        use ProviderErrorKind::*;
        for (code, kind) in [
            (400, BadRequest),
            (401, Auth),
            (402, Auth),
            (403, Auth),
            (404, BadRequest),
            (408, Server),
            (409, Server),
            (413, BadRequest),
            (422, BadRequest),
            (429, RateLimited),
            (500, Server),
            (502, Server),
            (503, Server),
            (504, Server),
            (529, Server),
            (302, Protocol),
        ] {
            assert_eq!(status_error(code, &[], "").kind, kind, "status {code}");
        }
    }

    #[test]
    fn not_found_names_the_model() {
        let body = r#"{"type":"error","error":{"type":"not_found_error","message":"model: claude-x"}}"#;
        let error = status_error(404, &[], body);
        assert_eq!(
            error.message,
            "Anthropic does not know the model \"claude-x\" (404 not_found_error: model: claude-x); check the \
             agent's model"
        );
        let error = status_error(404, &[], "404 page not found");
        assert!(error.message.contains("\"claude-x\" or has no API at https://api.anthropic.com/v1/messages"));
    }

    #[test]
    fn a_spent_quota_is_not_retried() {
        let body = r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#;
        assert_eq!(status_error(429, &[], body).kind, ProviderErrorKind::Auth);
    }

    #[test]
    fn rate_limits_carry_the_wait() {
        let error = status_error(
            429,
            &[("retry-after", "7")],
            r#"{"error":{"type":"rate_limit_error","message":"slow down"}}"#,
        );
        assert_eq!(error.retry_after, Some(Duration::from_secs(7)));
        assert_eq!(
            error.message,
            "Anthropic is rate limiting requests (429 rate_limit_error: slow down); it asked to wait 7 s"
        );
        let error = status_error(529, &[("retry-after", "2")], "");
        assert_eq!(error.retry_after, Some(Duration::from_secs(2)));
    }

    #[test]
    fn retry_after_forms() {
        let now = UNIX_EPOCH + Duration::from_secs(784_111_777); // Sun, 06 Nov 1994 08:49:37 GMT
        let read = |pairs: &[(&'static str, &'static str)]| retry_after(&headers(pairs), now);
        assert_eq!(read(&[("retry-after", "7")]), Some(Duration::from_secs(7)));
        assert_eq!(read(&[("retry-after", " 1.5 ")]), Some(Duration::from_millis(1500)));
        assert_eq!(read(&[("retry-after", "Sun, 06 Nov 1994 08:50:07 GMT")]), Some(Duration::from_secs(30)));
        assert_eq!(read(&[("retry-after", "Sun, 06 Nov 1994 08:00:00 GMT")]), Some(Duration::ZERO));
        assert_eq!(read(&[("retry-after-ms", "250"), ("retry-after", "9")]), Some(Duration::from_millis(250)));
        assert_eq!(read(&[("retry-after", "-3")]), None);
        assert_eq!(read(&[("retry-after", "NaN")]), None);
        assert_eq!(read(&[("retry-after", "soon")]), None);
        assert_eq!(read(&[("retry-after", "Sun, 32 Nov 1994 08:00:00 GMT")]), None);
        assert_eq!(read(&[]), None);
    }

    #[test]
    fn http_dates_match_known_instants() {
        assert_eq!(parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
        assert_eq!(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), Some(784_111_777));
        assert_eq!(parse_http_date("Tue, 29 Feb 2000 12:00:00 GMT"), Some(951_825_600));
        assert_eq!(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"), None);
    }

    #[test]
    fn stream_errors_are_classified_by_type() {
        use ProviderErrorKind::*;
        let kind_of = |json: &str| from_stream_error(&peer(), &serde_json::from_str(json).unwrap()).kind;
        assert_eq!(kind_of(r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#), Server);
        assert_eq!(kind_of(r#"{"type":"rate_limit_error","message":"slow"}"#), RateLimited);
        assert_eq!(kind_of(r#"{"type":"invalid_request_error","message":"bad"}"#), BadRequest);
        assert_eq!(kind_of(r#"{"type":"authentication_error","message":"no"}"#), Auth);
        assert_eq!(kind_of(r#"{"error":{"message":"oops","type":"server_error","code":null}}"#), Server);
        assert_eq!(kind_of(r#"{"error":{"message":"context too long","code":400}}"#), BadRequest);
        assert_eq!(kind_of(r#"{"error":{"type":"something_new","message":"?"}}"#), Server);
        assert_eq!(kind_of(r#"{"error":{}}"#), Protocol);
        let error = from_stream_error(&peer(), &serde_json::json!({"type":"overloaded_error","message":"Overloaded"}));
        assert_eq!(error.message, "Anthropic reported an error mid-reply (overloaded_error: Overloaded)");
    }

    #[test]
    fn seconds_read_naturally() {
        assert_eq!(seconds(Duration::from_secs(7)), "7 s");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5 s");
    }
}
