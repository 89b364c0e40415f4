//! Slack's Web API, as Beckon calls it: one method at a time, the token in the Authorization
//! header (never in a URL, a log line or an error), the reply read within a size limit and
//! sorted into the crate's errors — Slack answers most failures with HTTP 200 and
//! `{"ok":false,"error":"…"}`, so that body decides as much as the status does.

use std::time::Duration;

use reqwest::{Response, StatusCode, Url};
use serde_json::Value;

use crate::error::{Error, Result};

const CHANNEL: &str = "Slack";
/// The longest any one call may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// The largest reply read (a page of history with blocks stays far below it).
const REPLY_MAX_BYTES: usize = 4 * 1024 * 1024;
/// The wait asked for when Slack rate-limits without saying how long.
const DEFAULT_RETRY_AFTER_MS: u64 = 1_000;
/// The longest wait honoured from a Retry-After header.
const MAX_RETRY_AFTER_MS: u64 = 15 * 60 * 1_000;
/// Longest error code kept from a reply.
const ERROR_MAX_CHARS: usize = 200;
/// Where Slack's response URLs live.
const HOOKS_ORIGIN: &str = "https://hooks.slack.com";

/// Which token a call carries.
#[derive(Debug, Clone, Copy)]
pub(super) enum Token {
    /// The bot token (`xoxb-…`): posting, editing, reading history, opening forms.
    Bot,
    /// The app-level token (`xapp-…`): opening a Socket Mode connection.
    App,
}

/// A Web API client for one Slack app.
pub(super) struct WebApi {
    http: reqwest::Client,
    base: String,
    bot_token: String,
    app_token: String,
}

impl std::fmt::Debug for WebApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebApi").field("base", &self.base).finish_non_exhaustive()
    }
}

impl WebApi {
    pub(super) fn new(http: reqwest::Client, base: &str, bot_token: String, app_token: String) -> Self {
        WebApi { http, base: base.trim_end_matches('/').to_owned(), bot_token, app_token }
    }

    /// Whether the API is reached over plain HTTP (a local fake), so Socket Mode may use `ws:`.
    pub(super) fn is_plain_http(&self) -> bool {
        self.base.starts_with("http://")
    }

    /// Calls `method` with a JSON body; the reply's JSON when Slack says `ok`.
    pub(super) async fn post(&self, method: &'static str, token: Token, body: &Value) -> Result<Value> {
        let request = self.http.post(self.url(method)).bearer_auth(self.token(token)).json(body);
        self.send(method, request).await
    }

    /// Calls a read method with query parameters (Slack's read methods take no JSON body).
    pub(super) async fn get(&self, method: &'static str, token: Token, query: &[(&str, &str)]) -> Result<Value> {
        let request = self.http.get(self.url(method)).bearer_auth(self.token(token)).query(query);
        self.send(method, request).await
    }

    /// Posts `body` to a press's response URL. Only Slack's own hooks host (or, for a local
    /// fake, the API's own origin) is posted to: the URL comes from a payload.
    pub(super) async fn post_response_url(&self, url: &str, body: &Value) -> Result<()> {
        let method = "response_url";
        let Some(url) = self.response_url(url) else {
            return Err(Error::Refused { channel: CHANNEL, method, detail: "not a Slack response URL".into() });
        };
        let request = self.http.post(url).json(body).timeout(CALL_TIMEOUT);
        let response = request.send().await.map_err(unreachable)?;
        check_status(&response)?;
        // The reply is "ok" or a short error text; the status already said which.
        Ok(())
    }

    fn response_url(&self, url: &str) -> Option<Url> {
        if url.len() > 2048 {
            return None;
        }
        let url = Url::parse(url).ok()?;
        let hooks = Url::parse(HOOKS_ORIGIN).ok()?;
        let base = Url::parse(&self.base).ok()?;
        let allowed = [hooks.origin(), base.origin()];
        allowed.contains(&url.origin()).then_some(url)
    }

    fn url(&self, method: &str) -> String {
        format!("{}/{method}", self.base)
    }

    fn token(&self, token: Token) -> &str {
        match token {
            Token::Bot => &self.bot_token,
            Token::App => &self.app_token,
        }
    }

    async fn send(&self, method: &'static str, request: reqwest::RequestBuilder) -> Result<Value> {
        let response = request.timeout(CALL_TIMEOUT).send().await.map_err(unreachable)?;
        check_status(&response)?;
        let retry_after = retry_after_ms(&response);
        let body = read_limited(response).await?;
        let reply: Value = serde_json::from_slice(&body)
            .map_err(|_| Error::Unreachable { channel: CHANNEL, detail: format!("{method} replied with no JSON") })?;
        if reply.get("ok").and_then(Value::as_bool) == Some(true) {
            return Ok(reply);
        }
        let code = reply.get("error").and_then(Value::as_str).unwrap_or("unknown_error");
        let detail: String = code.chars().take(ERROR_MAX_CHARS).collect();
        Err(match code {
            "ratelimited" | "rate_limited" => {
                Error::RateLimited { channel: CHANNEL, retry_after_ms: retry_after.unwrap_or(DEFAULT_RETRY_AFTER_MS) }
            }
            "internal_error" | "fatal_error" | "service_unavailable" | "request_timeout" => {
                Error::Unreachable { channel: CHANNEL, detail: format!("{method}: {detail}") }
            }
            _ => Error::Refused { channel: CHANNEL, method, detail },
        })
    }
}

/// A failure to reach Slack, described without the URL (a response URL is a capability).
fn unreachable(err: reqwest::Error) -> Error {
    Error::Unreachable { channel: CHANNEL, detail: beckon_runtime::http_error::describe(err) }
}

/// HTTP 429 is a rate limit, 5xx and other non-success statuses a service in trouble.
fn check_status(response: &Response) -> Result<()> {
    let status = response.status();
    if status == StatusCode::TOO_MANY_REQUESTS {
        return Err(Error::RateLimited {
            channel: CHANNEL,
            retry_after_ms: retry_after_ms(response).unwrap_or(DEFAULT_RETRY_AFTER_MS),
        });
    }
    if !status.is_success() {
        return Err(Error::Unreachable { channel: CHANNEL, detail: format!("HTTP {}", status.as_u16()) });
    }
    Ok(())
}

/// The Retry-After header (whole seconds), bounded.
fn retry_after_ms(response: &Response) -> Option<u64> {
    let seconds: u64 = response.headers().get(reqwest::header::RETRY_AFTER)?.to_str().ok()?.trim().parse().ok()?;
    Some(seconds.saturating_mul(1_000).min(MAX_RETRY_AFTER_MS))
}

async fn read_limited(mut response: Response) -> Result<Vec<u8>> {
    let too_large = || Error::Unreachable { channel: CHANNEL, detail: "the reply is too large".into() };
    if response.content_length().is_some_and(|length| length > REPLY_MAX_BYTES as u64) {
        return Err(too_large());
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(unreachable)? {
        if body.len() + chunk.len() > REPLY_MAX_BYTES {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}
