//! Socket Mode: the connection Beckon opens to Slack to hear presses, with no port opened.
//!
//! `apps.connections.open` (the app-level token) gives a single-use WebSocket URL; Slack says
//! `hello`, then sends envelopes, each acknowledged at once by its `envelope_id` (Slack retries
//! an envelope it did not hear acknowledged within a few seconds, so a redelivery is expected
//! and is acknowledged again but turned into a press only once). A `disconnect` message asks
//! for a new connection; so does a dropped or silent socket. Reconnecting waits a jittered,
//! doubling delay that starts again from the bottom after a connection Slack greeted.
//!
//! Every wait here is on tokio's time, not the runtime's clock: each paces I/O on a live
//! connection (how long one may take to open or close, how often a quiet socket is pinged, how
//! long silence means it is dead, how soon to dial again), and only real time means anything
//! to the other end of a socket.
//!
//! Frames are bounded (the WebSocket layer refuses huge messages; texts over
//! [`FRAME_MAX_BYTES`] are dropped unread) and every payload is read as hostile input in
//! `interaction`. The URL carries a ticket and is never logged.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::time::{Instant, interval_at, sleep, timeout};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_util::sync::CancellationToken;

use super::app::Slack;
use super::direct;
use super::interaction::{self, Interaction};
use super::reply::Reply;
use super::web::Token;
use crate::channel::Heard;
use crate::error::Error;

/// The largest text frame read; Slack's interactive payloads are far smaller.
const FRAME_MAX_BYTES: usize = 256 * 1024;
/// The largest message the WebSocket layer assembles before giving up on the connection.
const MESSAGE_MAX_BYTES: usize = 1024 * 1024;
/// Longest envelope id accepted.
const ENVELOPE_ID_MAX_CHARS: usize = 128;
/// Envelope ids remembered to drop redeliveries.
const RECENT_ENVELOPES: usize = 1024;
/// The longest a connection may take to open.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// The longest a polite close may take.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(2);
/// How often Beckon pings an otherwise quiet socket.
const PING_EVERY: Duration = Duration::from_secs(30);
/// A socket silent this long (not even a pong) is taken as dead.
const SILENCE_LIMIT: Duration = Duration::from_secs(90);

/// Keeps a Socket Mode connection open until `stop` or until `presses` closes.
pub(super) async fn listen(slack: Arc<Slack>, presses: mpsc::Sender<Heard<Reply>>, stop: CancellationToken) {
    let mut backoff = Backoff::default();
    let mut recent = RecentEnvelopes::default();
    loop {
        let mut at_least = Duration::ZERO;
        match connection(&slack, &presses, &mut recent, &stop).await {
            End::Stopped => return,
            End::PressesClosed => {
                tracing::debug!(channel = "slack", "nobody takes presses any more; listening ends");
                return;
            }
            End::Closed { greeted } => {
                if greeted {
                    backoff.reset();
                }
                tracing::debug!(channel = "slack", "socket closed; reconnecting");
            }
            End::Failed { greeted, error } => {
                if greeted {
                    backoff.reset();
                }
                if let Error::RateLimited { retry_after_ms, .. } = &error {
                    at_least = Duration::from_millis(*retry_after_ms);
                }
                tracing::warn!(channel = "slack", %error, "socket mode connection failed; reconnecting");
            }
        }
        let delay = backoff.next(rand::random::<f64>()).max(at_least);
        tokio::select! {
            () = stop.cancelled() => return,
            () = presses.closed() => return,
            () = sleep(delay) => {}
        }
    }
}

type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// How one connection ended.
enum End {
    /// `stop` was cancelled.
    Stopped,
    /// Nobody takes presses any more.
    PressesClosed,
    /// Slack closed it, or asked for a new one.
    Closed { greeted: bool },
    /// It could not be opened, or broke.
    Failed { greeted: bool, error: Error },
}

fn broken(greeted: bool, detail: impl Into<String>) -> End {
    End::Failed { greeted, error: Error::Unreachable { channel: "Slack", detail: detail.into() } }
}

async fn connection(
    slack: &Arc<Slack>,
    presses: &mpsc::Sender<Heard<Reply>>,
    recent: &mut RecentEnvelopes,
    stop: &CancellationToken,
) -> End {
    let url = tokio::select! {
        () = stop.cancelled() => return End::Stopped,
        url = socket_url(slack) => match url {
            Ok(url) => url,
            Err(error) => return End::Failed { greeted: false, error },
        },
    };
    let config =
        WebSocketConfig::default().max_message_size(Some(MESSAGE_MAX_BYTES)).max_frame_size(Some(MESSAGE_MAX_BYTES));
    let connect = timeout(CONNECT_TIMEOUT, tokio_tungstenite::connect_async_with_config(url, Some(config), true));
    let mut socket = tokio::select! {
        () = stop.cancelled() => return End::Stopped,
        connected = connect => match connected {
            Ok(Ok((socket, _))) => socket,
            // The error may quote the URL; say only what kind of failure it was.
            Ok(Err(_)) => return broken(false, "the socket did not open"),
            Err(_) => return broken(false, "the socket took too long to open"),
        },
    };
    let mut greeted = false;
    let mut last_heard = Instant::now();
    let mut ping = interval_at(Instant::now() + PING_EVERY, PING_EVERY);
    loop {
        tokio::select! {
            () = stop.cancelled() => {
                close(&mut socket).await;
                return End::Stopped;
            }
            () = presses.closed() => return End::PressesClosed,
            _ = ping.tick() => {
                if last_heard.elapsed() > SILENCE_LIMIT {
                    return broken(greeted, "the socket went silent");
                }
                if socket.send(Message::Ping(Vec::new().into())).await.is_err() {
                    return broken(greeted, "the socket broke");
                }
            }
            frame = socket.next() => {
                let frame = match frame {
                    None => return End::Closed { greeted },
                    Some(Err(_)) => return broken(greeted, "the socket broke"),
                    Some(Ok(frame)) => frame,
                };
                last_heard = Instant::now();
                let text = match frame {
                    Message::Text(text) => text,
                    Message::Close(_) => return End::Closed { greeted },
                    // tungstenite answers pings itself; pongs only prove the socket alive.
                    Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => continue,
                    Message::Binary(_) => {
                        tracing::warn!(channel = "slack", "a binary frame on the socket; ignored");
                        continue;
                    }
                };
                if text.len() > FRAME_MAX_BYTES {
                    tracing::warn!(channel = "slack", bytes = text.len(), "an oversized frame; ignored");
                    continue;
                }
                match read_frame(text.as_str()) {
                    Frame::Hello => {
                        greeted = true;
                        tracing::debug!(channel = "slack", "socket mode connected");
                    }
                    Frame::Disconnect { reason } => {
                        tracing::debug!(channel = "slack", %reason, "slack asks for a new connection");
                        close(&mut socket).await;
                        return End::Closed { greeted };
                    }
                    Frame::Envelope { id, kind, payload } => {
                        if socket.send(Message::text(json!({"envelope_id": id}).to_string())).await.is_err() {
                            return broken(greeted, "the socket broke");
                        }
                        if !recent.first_time(&id) {
                            continue;
                        }
                        let end = match kind.as_str() {
                            "interactive" => dispatch(slack, &payload, presses, stop).await,
                            "events_api" => match direct::pairing_code(&payload) {
                                Some(heard) => pass_on(heard, presses, stop).await,
                                None => None,
                            },
                            _ => None,
                        };
                        if let Some(end) = end {
                            return end;
                        }
                    }
                    Frame::Other => {}
                }
            }
        }
    }
}

/// Acts on an interactive payload: a press goes to `presses`, a form button opens its form.
/// `Some` when listening must end.
async fn dispatch(
    slack: &Arc<Slack>,
    payload: &Value,
    presses: &mpsc::Sender<Heard<Reply>>,
    stop: &CancellationToken,
) -> Option<End> {
    match interaction::read(payload) {
        Interaction::Press(press) => pass_on(Heard::Press(press), presses, stop).await,
        Interaction::OpenForm { request_id, trigger_id, view } => {
            open_form(slack.clone(), request_id, trigger_id, view);
            None
        }
        Interaction::Ignore => None,
    }
}

/// Hands what was heard to the worker. `Some` when listening must end.
async fn pass_on(heard: Heard<Reply>, to: &mpsc::Sender<Heard<Reply>>, stop: &CancellationToken) -> Option<End> {
    tokio::select! {
        () = stop.cancelled() => Some(End::Stopped),
        sent = to.send(heard) => sent.is_err().then_some(End::PressesClosed),
    }
}

/// Closes the socket politely, but never waits long for it.
async fn close(socket: &mut Socket) {
    let _ = timeout(CLOSE_TIMEOUT, socket.close(None)).await;
}

/// A fresh single-use Socket Mode URL.
async fn socket_url(slack: &Slack) -> Result<String, Error> {
    let reply = slack.web.post("apps.connections.open", Token::App, &json!({})).await?;
    let url = reply.get("url").and_then(Value::as_str).unwrap_or_default();
    let secure = url.starts_with("wss://");
    let local = url.starts_with("ws://") && slack.web.is_plain_http();
    if url.len() > 4096 || !(secure || local) {
        return Err(Error::Unreachable { channel: "Slack", detail: "apps.connections.open gave no usable URL".into() });
    }
    Ok(url.to_owned())
}

/// Opens a form in the background: the press is acknowledged already, and the trigger id
/// lives for three seconds.
fn open_form(slack: Arc<Slack>, request_id: beckon_core::RequestId, trigger_id: String, view: Value) {
    tokio::spawn(async move {
        let body = json!({"trigger_id": trigger_id, "view": view});
        if let Err(err) = slack.web.post("views.open", Token::Bot, &body).await {
            tracing::warn!(channel = "slack", %request_id, %err, "cannot open the form");
        }
    });
}

/// One text frame from Slack, read.
#[derive(Debug, PartialEq)]
pub enum Frame {
    /// The connection is ready.
    Hello,
    /// Slack asks for a new connection.
    Disconnect { reason: String },
    /// Something to acknowledge and maybe act on.
    Envelope { id: String, kind: String, payload: Value },
    /// Anything else (unreadable frames too).
    Other,
}

/// Reads one text frame from Slack: a greeting, a request to reconnect, an envelope to
/// acknowledge, or anything else.
pub fn read_frame(text: &str) -> Frame {
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        tracing::warn!(channel = "slack", "a frame that is not JSON; ignored");
        return Frame::Other;
    };
    let field = |name: &str| value.get(name).and_then(Value::as_str);
    if let Some(id) = field("envelope_id") {
        if id.is_empty() || id.chars().count() > ENVELOPE_ID_MAX_CHARS {
            tracing::warn!(channel = "slack", "an envelope with an unusable id; ignored");
            return Frame::Other;
        }
        let kind = field("type").unwrap_or_default().chars().take(64).collect();
        let payload = value.get("payload").cloned().unwrap_or(Value::Null);
        return Frame::Envelope { id: id.to_owned(), kind, payload };
    }
    match field("type") {
        Some("hello") => Frame::Hello,
        Some("disconnect") => {
            Frame::Disconnect { reason: field("reason").unwrap_or("unknown").chars().take(64).collect() }
        }
        _ => Frame::Other,
    }
}

/// The wait before the next connection: 0.5 s doubling to 30 s, each wait drawn within ±50 %.
#[derive(Debug, Default)]
struct Backoff {
    failures: u32,
}

const BACKOFF_BASE: Duration = Duration::from_millis(500);
const BACKOFF_MAX: Duration = Duration::from_secs(30);

impl Backoff {
    /// The next wait; `unit` is a random number in [0, 1) that places it within the jitter.
    fn next(&mut self, unit: f64) -> Duration {
        let nominal = BACKOFF_BASE.saturating_mul(1 << self.failures.min(10)).min(BACKOFF_MAX);
        self.failures = self.failures.saturating_add(1);
        nominal.mul_f64(0.5 + unit.clamp(0.0, 1.0))
    }

    /// After a healthy connection, start again from the bottom.
    fn reset(&mut self) {
        self.failures = 0;
    }
}

/// The most recent envelope ids, to drop redeliveries; bounded, oldest forgotten first.
#[derive(Debug, Default)]
struct RecentEnvelopes {
    order: VecDeque<String>,
    ids: HashSet<String>,
}

impl RecentEnvelopes {
    /// Whether `id` is new; remembers it.
    fn first_time(&mut self, id: &str) -> bool {
        if self.ids.contains(id) {
            return false;
        }
        if self.order.len() == RECENT_ENVELOPES
            && let Some(oldest) = self.order.pop_front()
        {
            self.ids.remove(&oldest);
        }
        self.order.push_back(id.to_owned());
        self.ids.insert(id.to_owned());
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_to_its_cap_within_jitter_and_resets() {
        let mut backoff = Backoff::default();
        let waits: Vec<Duration> = (0..9).map(|_| backoff.next(0.5)).collect();
        assert_eq!(waits[0], Duration::from_millis(500));
        assert_eq!(waits[1], Duration::from_secs(1));
        assert_eq!(waits[8], Duration::from_secs(30));
        assert_eq!(backoff.next(0.0), Duration::from_secs(15));
        assert!(backoff.next(0.999) < Duration::from_secs(45));
        backoff.reset();
        assert_eq!(backoff.next(0.5), Duration::from_millis(500));
    }

    #[test]
    fn a_redelivered_envelope_is_seen_once_and_memory_is_bounded() {
        let mut recent = RecentEnvelopes::default();
        assert!(recent.first_time("a"));
        assert!(!recent.first_time("a"));
        for i in 0..RECENT_ENVELOPES {
            recent.first_time(&i.to_string());
        }
        assert_eq!(recent.ids.len(), RECENT_ENVELOPES);
        assert!(recent.first_time("a"), "the oldest id is forgotten");
    }

    #[test]
    fn frames_are_read_and_odd_ones_ignored() {
        assert_eq!(read_frame(r#"{"type":"hello","num_connections":1}"#), Frame::Hello);
        assert_eq!(
            read_frame(r#"{"type":"disconnect","reason":"refresh_requested"}"#),
            Frame::Disconnect { reason: "refresh_requested".into() }
        );
        let envelope = read_frame(r#"{"envelope_id":"e1","type":"interactive","payload":{"type":"x"}}"#);
        assert!(matches!(envelope, Frame::Envelope { ref id, ref kind, .. } if id == "e1" && kind == "interactive"));
        assert_eq!(read_frame("not json"), Frame::Other);
        assert_eq!(read_frame(&format!(r#"{{"envelope_id":"{}"}}"#, "e".repeat(500))), Frame::Other);
    }
}
