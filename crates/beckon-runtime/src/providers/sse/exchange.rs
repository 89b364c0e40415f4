//! One streamed HTTP exchange with an LLM API: send the request, turn a failure status into a
//! classified error, and read the reply's events with an idle timeout. One attempt, no retry.

use std::collections::VecDeque;
use std::time::{Duration, SystemTime};

use reqwest::header::CONTENT_TYPE;
use reqwest::{RequestBuilder, Response};
use serde_json::Value;

use super::failure::{self, Peer, error};
use super::{Event, Parser};
use crate::providers::{ProviderError, ProviderErrorKind};

/// The most of an error body read: error objects are small, and a proxy's HTML page need not
/// be read to the end.
const MAX_ERROR_BODY_BYTES: usize = 64 * 1024;

/// The most a whole reply may stream: far above any `max_tokens`, and a bound on a server that
/// never stops.
const MAX_REPLY_BYTES: u64 = 64 * 1024 * 1024;

/// How long to wait, and for what.
#[derive(Debug, Clone, Copy)]
pub(in crate::providers) struct Timeouts {
    /// For the status line and headers, once the request is sent.
    pub(in crate::providers) response: Duration,
    /// For each next piece of the stream.
    pub(in crate::providers) idle: Duration,
}

/// Sends `request` and returns its event stream, or the classified failure.
pub(in crate::providers) async fn open(
    peer: &Peer,
    request: RequestBuilder,
    timeouts: Timeouts,
) -> Result<EventStream, ProviderError> {
    let mut response = match tokio::time::timeout(timeouts.response, request.send()).await {
        Ok(Ok(response)) => response,
        Ok(Err(failed)) => return Err(failure::from_transport(peer, failed)),
        Err(_) => {
            return Err(error(
                ProviderErrorKind::Network,
                format!(
                    "{} ({}) did not answer within {}",
                    peer.provider,
                    peer.endpoint,
                    failure::seconds(timeouts.response)
                ),
            ));
        }
    };
    let status = response.status();
    if !status.is_success() {
        let body = read_start(&mut response, timeouts.idle).await;
        return Err(failure::from_status(peer, status, response.headers(), &body, SystemTime::now()));
    }
    let is_json = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.trim_start().to_ascii_lowercase().starts_with("application/json"));
    if is_json {
        // A server (or a proxy) that ignored `stream: true`, or reported an error with 200.
        let body = read_start(&mut response, timeouts.idle).await;
        if let Some(reported) = serde_json::from_slice::<Value>(&body).ok().filter(|json| json.get("error").is_some()) {
            return Err(failure::from_stream_error(peer, &reported));
        }
        return Err(error(
            ProviderErrorKind::Protocol,
            format!(
                "{} answered {} with JSON instead of an event stream; does it support streaming? ({})",
                peer.provider,
                status.as_u16(),
                failure::quote(&String::from_utf8_lossy(&body))
            ),
        ));
    }
    Ok(EventStream {
        response,
        parser: Parser::default(),
        ready: VecDeque::new(),
        idle: timeouts.idle,
        received: 0,
        provider: peer.provider.clone(),
    })
}

/// The first [`MAX_ERROR_BODY_BYTES`] of a body, or what arrived of it before a failure or a
/// silence: a failed reply's body only adds detail to an error already known.
async fn read_start(response: &mut Response, idle: Duration) -> Vec<u8> {
    let mut body = Vec::new();
    while body.len() < MAX_ERROR_BODY_BYTES {
        match tokio::time::timeout(idle, response.chunk()).await {
            Ok(Ok(Some(chunk))) => body.extend_from_slice(&chunk),
            Ok(Ok(None) | Err(_)) | Err(_) => break,
        }
    }
    body.truncate(MAX_ERROR_BODY_BYTES);
    body
}

/// The events of a reply, as they arrive.
#[derive(Debug)]
pub(in crate::providers) struct EventStream {
    response: Response,
    parser: Parser,
    /// Events parsed but not yet taken.
    ready: VecDeque<Event>,
    idle: Duration,
    /// Bytes read so far.
    received: u64,
    provider: String,
}

impl EventStream {
    /// The next event; `None` once the server has closed the stream.
    pub(in crate::providers) async fn next(&mut self) -> Result<Option<Event>, ProviderError> {
        loop {
            if let Some(event) = self.ready.pop_front() {
                return Ok(Some(event));
            }
            let chunk = match tokio::time::timeout(self.idle, self.response.chunk()).await {
                Ok(Ok(Some(chunk))) => chunk,
                Ok(Ok(None)) => return Ok(None),
                Ok(Err(broken)) => {
                    return Err(error(
                        ProviderErrorKind::Network,
                        format!(
                            "the connection to {} broke mid-reply: {}",
                            self.provider,
                            crate::http_error::describe(broken)
                        ),
                    ));
                }
                Err(_) => {
                    return Err(error(
                        ProviderErrorKind::Network,
                        format!(
                            "{} sent nothing for {} mid-reply; the connection was given up",
                            self.provider,
                            failure::seconds(self.idle)
                        ),
                    ));
                }
            };
            self.received += chunk.len() as u64;
            if self.received > MAX_REPLY_BYTES {
                return Err(error(
                    ProviderErrorKind::Protocol,
                    format!("{}'s reply passed {MAX_REPLY_BYTES} bytes without ending; it was cut off", self.provider),
                ));
            }
            let events = self.parser.feed(&chunk).map_err(|too_large| {
                error(ProviderErrorKind::Protocol, format!("{}'s event stream is broken: {too_large}", self.provider))
            })?;
            self.ready.extend(events);
        }
    }
}
