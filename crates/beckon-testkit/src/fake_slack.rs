//! A fake Slack on loopback that speaks the documented wire formats: the Web API methods
//! Beckon calls (JSON or form bodies, `Authorization: Bearer` or a `token` parameter, HTTP 200
//! with `{"ok":false,"error":…}` on failure), Socket Mode (`apps.connections.open` hands out a
//! single-use `ws://` URL on the same server, which says `hello` and then carries whatever
//! envelopes a test pushes, recording every acknowledgement), and response URLs. Tests read
//! what it recorded and wait for things through a change counter, never by sleeping.

use std::collections::{HashMap, HashSet, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{FromRequest, Path, Query, Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use serde_json::{Value, json};
use tokio::sync::{mpsc, watch};

pub const APP_TOKEN: &str = "xapp-1-A0FAKE-test-app-token-s3cr3t";
pub const BOT_TOKEN: &str = "xoxb-test-bot-token-s3cr3t";
pub const CHANNEL: &str = "C0BECKON";
/// How long a test waits for something before failing.
const WAIT: Duration = Duration::from_secs(10);

/// A message the bot posted, as the fake holds it.
#[derive(Debug, Clone)]
pub struct StoredMessage {
    pub channel: String,
    pub ts: String,
    pub text: String,
    pub blocks: Value,
    pub metadata: Option<Value>,
    /// How many times chat.update replaced it.
    pub updates: usize,
}

impl StoredMessage {
    /// Its buttons, as (action id, label), in order.
    pub fn buttons(&self) -> Vec<(String, String)> {
        self.blocks
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|block| block["elements"].as_array().cloned().unwrap_or_default())
            .filter(|element| element["type"] == "button")
            .map(|e| (e["action_id"].as_str().unwrap().to_owned(), e["text"]["text"].as_str().unwrap().to_owned()))
            .collect()
    }
}

/// An ephemeral message: through a response URL (its number) or chat.postEphemeral.
#[derive(Debug, Clone)]
pub struct Ephemeral {
    pub response_url: Option<usize>,
    pub channel: Option<String>,
    pub user: Option<String>,
    pub text: String,
    pub body: Value,
}

/// A view opened with views.open.
#[derive(Debug, Clone)]
pub struct OpenedView {
    pub trigger_id: String,
    pub view: Value,
}

/// A failure the next Web API call gets.
#[derive(Debug, Clone, Copy)]
pub enum Failure {
    Status500,
    RateLimited { retry_after_secs: u64 },
}

/// Everything the fake recorded.
#[derive(Debug, Default)]
pub struct Recorded {
    pub messages: Vec<StoredMessage>,
    pub ephemerals: Vec<Ephemeral>,
    pub views: Vec<OpenedView>,
    /// Every frame the client sent on a socket that carried an envelope_id.
    pub acks: Vec<Value>,
    /// Sockets opened so far.
    pub connections: usize,
    /// Web API methods called, in order.
    pub calls: Vec<String>,
    tickets: HashSet<String>,
    failures: VecDeque<Failure>,
    socket: Option<mpsc::UnboundedSender<SocketCommand>>,
    socket_id: usize,
    last_ts_micros: u64,
    response_urls: usize,
    triggers: usize,
    envelopes: usize,
    /// How long a posted message's answer takes once the message exists (a distant server).
    latency: Duration,
}

#[derive(Debug)]
enum SocketCommand {
    Send(String),
    Drop,
}

struct Shared {
    recorded: Mutex<Recorded>,
    changed: watch::Sender<u64>,
    addr: SocketAddr,
}

/// The fake server; clones share it.
#[derive(Clone)]
pub struct FakeSlack {
    shared: Arc<Shared>,
}

// By its address only: what it recorded is read through its methods.
impl std::fmt::Debug for FakeSlack {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeSlack").field("addr", &self.shared.addr).finish_non_exhaustive()
    }
}

impl FakeSlack {
    /// Starts the fake on 127.0.0.1 on a free port.
    pub async fn start() -> FakeSlack {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let shared = Arc::new(Shared { recorded: Mutex::default(), changed: watch::Sender::new(0), addr });
        let fake = FakeSlack { shared };
        let app = Router::new()
            .route("/api/{method}", any(api))
            .route("/link", get(link))
            .route("/response/{n}", post(response_url))
            .with_state(fake.clone());
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        fake
    }

    /// The Web API base URL a client is given.
    pub fn api_base(&self) -> String {
        format!("http://{}/api", self.shared.addr)
    }

    fn update<T>(&self, change: impl FnOnce(&mut Recorded) -> T) -> T {
        let out = change(&mut self.shared.recorded.lock().unwrap());
        self.shared.changed.send_modify(|n| *n += 1);
        out
    }

    fn read<T>(&self, look: impl FnOnce(&Recorded) -> T) -> T {
        look(&self.shared.recorded.lock().unwrap())
    }

    pub fn messages(&self) -> Vec<StoredMessage> {
        self.read(|r| r.messages.clone())
    }

    pub fn ephemerals(&self) -> Vec<Ephemeral> {
        self.read(|r| r.ephemerals.clone())
    }

    pub fn views(&self) -> Vec<OpenedView> {
        self.read(|r| r.views.clone())
    }

    pub fn acks(&self) -> Vec<Value> {
        self.read(|r| r.acks.clone())
    }

    pub fn connections(&self) -> usize {
        self.read(|r| r.connections)
    }

    pub fn calls(&self) -> Vec<String> {
        self.read(|r| r.calls.clone())
    }

    /// Every `chat.postMessage` answer takes `latency` after the message exists.
    pub fn set_latency(&self, latency: Duration) {
        self.update(|r| r.latency = latency);
    }

    /// Makes the next Web API call fail so.
    pub fn fail_next(&self, failure: Failure) {
        self.update(|r| r.failures.push_back(failure));
    }

    /// Waits until `check` finds something in what was recorded; fails the test after a while.
    pub async fn wait_for<T>(&self, what: &str, check: impl Fn(&Recorded) -> Option<T>) -> T {
        let mut changes = self.shared.changed.subscribe();
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            changes.borrow_and_update();
            if let Some(found) = self.read(&check) {
                return found;
            }
            match tokio::time::timeout_at(deadline, changes.changed()).await {
                Ok(Ok(())) => {}
                _ => panic!("timed out waiting for {what}"),
            }
        }
    }

    /// Waits for the message Beckon posted for `request_id` (found by the metadata it posts
    /// with every question).
    pub async fn message_for(&self, request_id: &str) -> StoredMessage {
        self.wait_for("the Slack message", |recorded| {
            recorded
                .messages
                .iter()
                .find(|m| m.metadata.as_ref().is_some_and(|meta| meta["event_payload"]["request_id"] == request_id))
                .cloned()
        })
        .await
    }

    /// Waits until `n` sockets have been opened and the last one is live.
    pub async fn wait_connections(&self, n: usize) {
        self.wait_for(&format!("{n} connections"), |r| (r.connections >= n && r.socket.is_some()).then_some(())).await;
    }

    /// Waits until the client acknowledged `envelope_id` `times` times.
    pub async fn wait_acks(&self, envelope_id: &str, times: usize) {
        self.wait_for(&format!("ack of {envelope_id}"), |r| {
            (r.acks.iter().filter(|ack| ack["envelope_id"] == envelope_id).count() >= times).then_some(())
        })
        .await;
    }

    /// Sends a frame on the live socket.
    pub fn send(&self, frame: &Value) {
        let socket = self.read(|r| r.socket.clone()).expect("no live socket");
        socket.send(SocketCommand::Send(frame.to_string())).unwrap();
    }

    /// Asks the client to reconnect, as Slack does before recycling a connection.
    pub fn send_disconnect(&self, reason: &str) {
        self.send(&json!({"type": "disconnect", "reason": reason, "debug_info": {"host": "fake-slack"}}));
    }

    /// Drops the live socket with no close frame.
    pub fn drop_socket(&self) {
        let socket = self.update(|r| r.socket.take()).expect("no live socket");
        let _ = socket.send(SocketCommand::Drop);
    }

    /// An interactive envelope around `payload`, with a fresh envelope id.
    pub fn envelope(&self, payload: Value) -> Value {
        let n = self.update(|r| {
            r.envelopes += 1;
            r.envelopes
        });
        json!({
            "envelope_id": format!("{n:08}-8e5f-4c4d-9a3b-0190f1d27a3b"),
            "type": "interactive",
            "payload": payload,
            "accepts_response_payload": false,
            "retry_attempt": 0,
            "retry_reason": "",
        })
    }

    /// A realistic `block_actions` envelope for pressing `action_id` on the message `ts`,
    /// with the message's input `state`; the button's value and block are read from the
    /// stored message, as Slack does.
    pub fn press_button(&self, ts: &str, action_id: &str, user: (&str, &str), state: Value) -> Value {
        let message = self.messages().into_iter().find(|m| m.ts == ts).expect("no such message");
        let (block_id, element) = message
            .blocks
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|block| Some((block["block_id"].clone(), block["elements"].as_array()?.clone())))
            .flat_map(|(block_id, elements)| elements.into_iter().map(move |e| (block_id.clone(), e)))
            .find(|(_, element)| element["action_id"] == action_id)
            .expect("no such button on the message");
        let (response_url, trigger_id) = self.update(|r| {
            r.response_urls += 1;
            r.triggers += 1;
            (r.response_urls, r.triggers)
        });
        let (user_id, user_name) = user;
        self.envelope(json!({
            "type": "block_actions",
            "user": {"id": user_id, "username": user_name, "name": user_name, "team_id": "T0FAKE"},
            "api_app_id": "A0FAKE",
            "token": "legacy-verification-token",
            "container": {"type": "message", "message_ts": ts, "channel_id": message.channel, "is_ephemeral": false},
            "trigger_id": format!("{trigger_id}.1234.abcdef"),
            "team": {"id": "T0FAKE", "domain": "fake"},
            "enterprise": null,
            "is_enterprise_install": false,
            "channel": {"id": message.channel, "name": "beckon"},
            "message": {"type": "message", "ts": ts, "text": message.text, "blocks": message.blocks, "bot_id": "B0FAKE"},
            "state": {"values": state},
            "response_url": format!("http://{}/response/{response_url}", self.shared.addr),
            "actions": [{
                "action_id": action_id,
                "block_id": block_id,
                "text": element["text"],
                "value": element["value"],
                "type": "button",
                "action_ts": "1700000000.123456",
            }],
        }))
    }

    /// A realistic `view_submission` envelope for the `index`th opened view with these input
    /// `values` (`{block_id: {action_id: {...}}}`).
    pub fn submit_view(&self, index: usize, user: (&str, &str), values: Value) -> Value {
        let opened = self.views().into_iter().nth(index).expect("no such view");
        let view = &opened.view;
        let (user_id, user_name) = user;
        self.envelope(json!({
            "type": "view_submission",
            "team": {"id": "T0FAKE", "domain": "fake"},
            "user": {"id": user_id, "username": user_name, "name": user_name, "team_id": "T0FAKE"},
            "api_app_id": "A0FAKE",
            "token": "legacy-verification-token",
            "trigger_id": "9.1234.abcdef",
            "view": {
                "id": format!("V{index}"),
                "team_id": "T0FAKE",
                "type": "modal",
                "blocks": view["blocks"],
                "private_metadata": view["private_metadata"],
                "callback_id": view["callback_id"],
                "state": {"values": values},
                "hash": "1700000000.abc",
                "title": view["title"],
            },
            "response_urls": [],
        }))
    }

    /// The next message ts: the wall clock in microseconds, always increasing.
    fn next_ts(&self) -> String {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_micros() as u64;
        let micros = self.update(|r| {
            r.last_ts_micros = now.max(r.last_ts_micros + 1);
            r.last_ts_micros
        });
        format!("{}.{:06}", micros / 1_000_000, micros % 1_000_000)
    }
}

/// A Slack ts as microseconds, for comparing.
fn ts_micros(ts: &str) -> Option<u64> {
    let (secs, frac) = ts.split_once('.').unwrap_or((ts, "0"));
    let frac = format!("{frac:0<6}");
    Some(secs.parse::<u64>().ok()? * 1_000_000 + frac.get(..6)?.parse::<u64>().ok()?)
}

fn slack_error(error: &str) -> Response {
    axum::Json(json!({"ok": false, "error": error})).into_response()
}

fn ok(mut body: Value) -> Response {
    body["ok"] = json!(true);
    axum::Json(body).into_response()
}

/// The call's parameters and token, from a JSON body, a form body or a query string.
async fn read_call(request: Request) -> Option<(HashMap<String, Value>, Option<String>)> {
    let bearer = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_owned);
    let json_body = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    let mut params: HashMap<String, Value> = if request.method() == Method::GET {
        let Query(query) = Query::<HashMap<String, String>>::try_from_uri(request.uri()).ok()?;
        query.into_iter().map(|(k, v)| (k, Value::String(v))).collect()
    } else if json_body {
        let axum::Json(body) = axum::Json::<HashMap<String, Value>>::from_request(request, &()).await.ok()?;
        body
    } else {
        let axum::Form(form) = axum::Form::<HashMap<String, String>>::from_request(request, &()).await.ok()?;
        form.into_iter().map(|(k, v)| (k, Value::String(v))).collect()
    };
    let token = bearer.or_else(|| params.remove("token").and_then(|t| t.as_str().map(str::to_owned)));
    Some((params, token))
}

fn text_param(params: &HashMap<String, Value>, name: &str) -> Option<String> {
    match params.get(name)? {
        Value::String(text) => Some(text.clone()),
        Value::Bool(flag) => Some(flag.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A JSON parameter that a form body sends as text.
fn json_param(params: &HashMap<String, Value>, name: &str) -> Option<Value> {
    match params.get(name)? {
        Value::String(text) => serde_json::from_str(text).ok(),
        other => Some(other.clone()),
    }
}

async fn api(State(fake): State<FakeSlack>, Path(method): Path<String>, request: Request) -> Response {
    fake.update(|r| r.calls.push(method.clone()));
    if let Some(failure) = fake.update(|r| r.failures.pop_front()) {
        return match failure {
            Failure::Status500 => (StatusCode::INTERNAL_SERVER_ERROR, "oops").into_response(),
            Failure::RateLimited { retry_after_secs } => {
                let mut headers = HeaderMap::new();
                headers.insert(header::RETRY_AFTER, retry_after_secs.to_string().parse().unwrap());
                (StatusCode::TOO_MANY_REQUESTS, headers, axum::Json(json!({"ok": false, "error": "ratelimited"})))
                    .into_response()
            }
        };
    }
    let Some((params, token)) = read_call(request).await else { return slack_error("invalid_arguments") };
    let expected = if method == "apps.connections.open" { APP_TOKEN } else { BOT_TOKEN };
    match token.as_deref() {
        None => return slack_error("not_authed"),
        Some(token) if token != expected => return slack_error("invalid_auth"),
        Some(_) => {}
    }
    match method.as_str() {
        "apps.connections.open" => {
            let ticket = fake.update(|r| {
                r.envelopes += 1;
                let ticket = format!("ticket-{}-{}", r.envelopes, r.connections);
                r.tickets.insert(ticket.clone());
                ticket
            });
            ok(json!({"url": format!("ws://{}/link?ticket={ticket}", fake.shared.addr)}))
        }
        "chat.postMessage" => {
            let response = post_message(&fake, &params);
            // The message exists before its answer leaves: a client killed meanwhile never
            // hears of it.
            tokio::time::sleep(fake.read(|r| r.latency)).await;
            response
        }
        "chat.update" => update_message(&fake, &params),
        "chat.postEphemeral" => {
            let (Some(channel), Some(user)) = (text_param(&params, "channel"), text_param(&params, "user")) else {
                return slack_error("invalid_arguments");
            };
            let text = text_param(&params, "text").unwrap_or_default();
            let body = json!(params);
            fake.update(|r| {
                r.ephemerals.push(Ephemeral {
                    response_url: None,
                    channel: Some(channel),
                    user: Some(user),
                    text,
                    body,
                })
            });
            ok(json!({"message_ts": fake.next_ts()}))
        }
        "views.open" => {
            let (Some(trigger_id), Some(view)) = (text_param(&params, "trigger_id"), json_param(&params, "view"))
            else {
                return slack_error("invalid_arguments");
            };
            if view["type"] != "modal" || view["private_metadata"].as_str().is_some_and(|m| m.chars().count() > 3000) {
                return slack_error("invalid_arguments");
            }
            fake.update(|r| r.views.push(OpenedView { trigger_id, view: view.clone() }));
            ok(json!({"view": view}))
        }
        "conversations.open" => {
            let Some(users) = text_param(&params, "users") else { return slack_error("invalid_arguments") };
            ok(json!({"channel": {"id": dm_channel(&users)}}))
        }
        "conversations.history" => history(&fake, &params),
        _ => slack_error("unknown_method"),
    }
}

/// A user id's direct-message channel.
fn dm_channel(user: &str) -> String {
    format!("D{}", user.trim_start_matches(['U', 'W']))
}

/// Checks what Slack checks of blocks that Beckon could get wrong: counts and lengths.
fn blocks_ok(blocks: &Value) -> bool {
    let Some(blocks) = blocks.as_array() else { return false };
    let mut action_ids = HashSet::new();
    blocks.len() <= 50
        && blocks.iter().all(|block| {
            let text_ok = block["text"]["text"].as_str().is_none_or(|t| t.chars().count() <= 3000);
            let elements = block["elements"].as_array().cloned().unwrap_or_default();
            text_ok
                && elements.iter().all(|element| {
                    element["value"].as_str().is_none_or(|v| v.chars().count() <= 2000)
                        && element["action_id"]
                            .as_str()
                            .is_none_or(|id| id.chars().count() <= 255 && action_ids.insert(id.to_owned()))
                        && (element["type"] != "button"
                            || element["text"]["text"].as_str().is_some_and(|t| t.chars().count() <= 75))
                })
        })
}

fn post_message(fake: &FakeSlack, params: &HashMap<String, Value>) -> Response {
    let Some(channel) = text_param(params, "channel") else { return slack_error("channel_not_found") };
    let channel = if channel.starts_with('U') { dm_channel(&channel) } else { channel };
    let blocks = json_param(params, "blocks").unwrap_or(json!([]));
    if !blocks_ok(&blocks) {
        return slack_error("invalid_blocks");
    }
    let text = text_param(params, "text").unwrap_or_default();
    let metadata = json_param(params, "metadata");
    let ts = fake.next_ts();
    let stored =
        StoredMessage { channel: channel.clone(), ts: ts.clone(), text: text.clone(), blocks, metadata, updates: 0 };
    let message = json!({"type": "message", "text": text, "ts": ts, "bot_id": "B0FAKE", "blocks": stored.blocks});
    fake.update(|r| r.messages.push(stored));
    ok(json!({"channel": channel, "ts": ts, "message": message}))
}

fn update_message(fake: &FakeSlack, params: &HashMap<String, Value>) -> Response {
    let (Some(channel), Some(ts)) = (text_param(params, "channel"), text_param(params, "ts")) else {
        return slack_error("invalid_arguments");
    };
    let blocks = json_param(params, "blocks");
    if blocks.as_ref().is_some_and(|b| !blocks_ok(b)) {
        return slack_error("invalid_blocks");
    }
    let text = text_param(params, "text");
    let found = fake.update(|r| {
        let message = r.messages.iter_mut().find(|m| m.channel == channel && m.ts == ts)?;
        if let Some(blocks) = blocks {
            message.blocks = blocks;
        }
        if let Some(text) = text {
            message.text = text;
        }
        message.updates += 1;
        Some(())
    });
    match found {
        Some(()) => ok(json!({"channel": channel, "ts": ts})),
        None => slack_error("message_not_found"),
    }
}

/// Newest first, after `oldest` (exclusive, as Slack without `inclusive`), with metadata only
/// when asked, paged by an offset cursor.
fn history(fake: &FakeSlack, params: &HashMap<String, Value>) -> Response {
    let Some(channel) = text_param(params, "channel") else { return slack_error("channel_not_found") };
    let oldest = text_param(params, "oldest").and_then(|ts| ts_micros(&ts)).unwrap_or(0);
    let limit: usize = text_param(params, "limit").and_then(|l| l.parse().ok()).unwrap_or(100).clamp(1, 999);
    let offset: usize = text_param(params, "cursor").and_then(|c| c.strip_prefix("offset:")?.parse().ok()).unwrap_or(0);
    let metadata = text_param(params, "include_all_metadata").is_some_and(|v| v == "true" || v == "1");
    let mut messages: Vec<StoredMessage> = fake
        .messages()
        .into_iter()
        .filter(|m| m.channel == channel && ts_micros(&m.ts).is_some_and(|ts| ts > oldest))
        .collect();
    messages.reverse();
    let page: Vec<Value> = messages
        .iter()
        .skip(offset)
        .take(limit)
        .map(|m| {
            let mut message = json!({"type": "message", "ts": m.ts, "text": m.text, "bot_id": "B0FAKE"});
            if let (true, Some(meta)) = (metadata, &m.metadata) {
                message["metadata"] = meta.clone();
            }
            message
        })
        .collect();
    let more = messages.len() > offset + limit;
    let next = if more { format!("offset:{}", offset + limit) } else { String::new() };
    ok(json!({"messages": page, "has_more": more, "response_metadata": {"next_cursor": next}}))
}

async fn response_url(State(fake): State<FakeSlack>, Path(n): Path<usize>, body: axum::Json<Value>) -> Response {
    let axum::Json(body) = body;
    let text = body["text"].as_str().unwrap_or_default().to_owned();
    fake.update(|r| r.ephemerals.push(Ephemeral { response_url: Some(n), channel: None, user: None, text, body }));
    ok(json!({}))
}

async fn link(
    State(fake): State<FakeSlack>,
    Query(query): Query<HashMap<String, String>>,
    ws: WebSocketUpgrade,
) -> Response {
    let ticket = query.get("ticket").cloned().unwrap_or_default();
    if !fake.update(|r| r.tickets.remove(&ticket)) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    ws.on_upgrade(move |socket| run_socket(fake, socket))
}

async fn run_socket(fake: FakeSlack, mut socket: WebSocket) {
    let (commands, mut incoming) = mpsc::unbounded_channel();
    let id = fake.update(|r| {
        r.connections += 1;
        r.socket_id += 1;
        r.socket = Some(commands);
        r.socket_id
    });
    let hello = json!({
        "type": "hello",
        "num_connections": 1,
        "debug_info": {"host": "fake-slack", "approximate_connection_time": 18060},
        "connection_info": {"app_id": "A0FAKE"},
    });
    if socket.send(Message::Text(hello.to_string().into())).await.is_err() {
        return;
    }
    loop {
        tokio::select! {
            command = incoming.recv() => match command {
                Some(SocketCommand::Send(text)) => {
                    if socket.send(Message::Text(text.into())).await.is_err() {
                        break;
                    }
                }
                // Dropping the socket closes the connection with no close frame.
                Some(SocketCommand::Drop) | None => return,
            },
            frame = socket.recv() => match frame {
                Some(Ok(Message::Text(text))) => {
                    if let Ok(value) = serde_json::from_str::<Value>(text.as_str())
                        && value.get("envelope_id").is_some()
                    {
                        fake.update(|r| r.acks.push(value));
                    }
                }
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                Some(Ok(_)) => {}
            },
        }
    }
    fake.update(|r| {
        if r.socket_id == id {
            r.socket = None;
        }
    });
}
