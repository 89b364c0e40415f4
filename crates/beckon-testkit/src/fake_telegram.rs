//! A fake Telegram Bot API for tests: an HTTP server on 127.0.0.1 that answers the methods
//! Beckon calls the way the real one does (`{"ok": true, "result": …}`, or `{"ok": false,
//! "error_code": …, "description": …}` with Telegram's own error texts), and lets a test act as
//! the person: send, reply, press.
//!
//! What it models: per-chat message ids shared by the bot's and the person's messages;
//! updates kept until a later `getUpdates` asks from past them (its `offset`), long polling
//! that holds until an update comes or the timeout passes; edits with the real refusals ("not
//! modified", "not found", "can't be edited" for the person's messages and for messages with a
//! reply field); callback queries answered once. Failures can be injected: `getUpdates`
//! answering 409, 429 (with `retry_after`) or 502, a post that goes out but whose answer is
//! lost, and updates sent again after they were confirmed.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// The bot's own user id.
pub const BOT_ID: i64 = 1_000_001;
/// How long `until` waits before failing the test.
const WAIT: Duration = Duration::from_secs(10);
/// The longest long poll the fake holds (Telegram's own limit is 50 s).
const LONGEST_POLL: u64 = 50;

/// A message in a chat, as the fake keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct FakeMessage {
    pub id: i64,
    pub from_bot: bool,
    pub text: String,
    /// The inline keyboard (`{"inline_keyboard": …}`), when the message has one.
    pub reply_markup: Option<Value>,
    /// Sent with a reply field (`force_reply`): such messages cannot be edited.
    pub force_reply: bool,
    /// The message this one replies to.
    pub reply_to: Option<i64>,
    /// The keyboard it was sent with (edits may change or remove `reply_markup`).
    pub sent_markup: Option<Value>,
}

impl FakeMessage {
    /// The texts of the message's buttons, row by row.
    pub fn button_texts(&self) -> Vec<String> {
        self.buttons().into_iter().map(|(text, _)| text).collect()
    }

    /// Each button's text and `callback_data`.
    pub fn buttons(&self) -> Vec<(String, String)> {
        let rows =
            self.reply_markup.as_ref().and_then(|m| m["inline_keyboard"].as_array().cloned()).unwrap_or_default();
        rows.iter()
            .flat_map(|row| row.as_array().cloned().unwrap_or_default())
            .map(|b| {
                (b["text"].as_str().unwrap_or("").to_owned(), b["callback_data"].as_str().unwrap_or("").to_owned())
            })
            .collect()
    }
}

/// One `answerCallbackQuery` call.
#[derive(Debug, Clone, PartialEq)]
pub struct CallbackAnswer {
    pub query: String,
    pub text: Option<String>,
    pub show_alert: bool,
}

#[derive(Default)]
struct Chat {
    last_id: i64,
    messages: Vec<FakeMessage>,
}

#[derive(Default)]
struct World {
    chats: HashMap<i64, Chat>,
    usernames: HashMap<i64, String>,
    /// Updates not yet confirmed by an offset past them, oldest first.
    queue: VecDeque<Value>,
    /// Every update ever made.
    history: Vec<Value>,
    /// Updates to send once more, whatever the offset.
    again: Vec<Value>,
    /// Such updates sent and not yet confirmed (by the next call).
    again_sent: Vec<Value>,
    last_update_id: i64,
    last_query: u64,
    open_queries: HashSet<String>,
    answers: Vec<CallbackAnswer>,
    get_updates_failures: VecDeque<u16>,
    get_updates_calls: usize,
    polls_in_flight: usize,
    lose_next_send: bool,
    /// How long a sent message's answer takes once the message exists (a distant server).
    latency: Duration,
}

struct Shared {
    token: String,
    world: Mutex<World>,
    changed: watch::Sender<u64>,
}

impl Shared {
    fn world(&self) -> MutexGuard<'_, World> {
        self.world.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn touch(&self) {
        self.changed.send_modify(|n| *n += 1);
    }
}

/// The fake Bot API; stops when dropped.
pub struct FakeTelegram {
    base: String,
    shared: Arc<Shared>,
    server: JoinHandle<()>,
}

// By its address only: what it recorded is read through its methods.
impl std::fmt::Debug for FakeTelegram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeTelegram").field("base", &self.base).finish_non_exhaustive()
    }
}

impl Drop for FakeTelegram {
    fn drop(&mut self) {
        self.server.abort();
    }
}

impl FakeTelegram {
    /// A fake bot with `token`, listening on a free port of 127.0.0.1.
    pub async fn start(token: &str) -> FakeTelegram {
        let shared = Arc::new(Shared {
            token: token.to_owned(),
            world: Mutex::new(World::default()),
            changed: watch::channel(0).0,
        });
        let app = Router::new().route("/{bot}/{method}", post(call)).with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let server = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        FakeTelegram { base, shared, server }
    }

    /// Where the fake is: the `api_base` to configure.
    pub fn base(&self) -> String {
        self.base.clone()
    }

    /// Gives the person of `chat` a username (`@name`).
    pub fn name_user(&self, chat: i64, username: &str) {
        self.shared.world().usernames.insert(chat, username.to_owned());
    }

    /// The person of private chat `chat` sends `text`; the message's id.
    pub fn user_sends(&self, chat: i64, text: &str) -> i64 {
        self.user_message(chat, text, None)
    }

    /// The person of `chat` replies to message `to` with `text`; the reply's id.
    pub fn user_replies(&self, chat: i64, to: i64, text: &str) -> i64 {
        self.user_message(chat, text, Some(to))
    }

    fn user_message(&self, chat: i64, text: &str, to: Option<i64>) -> i64 {
        let id = {
            let mut world = self.shared.world();
            let replied = to.map(|to| match world.message(chat, to) {
                Some(message) => world.message_json(chat, &message),
                // The person's client shows what it shows; Telegram sends the id it was given.
                None => json!({"message_id": to, "chat": world.chat_json(chat), "date": 1, "text": ""}),
            });
            let log = world.chats.entry(chat).or_default();
            log.last_id += 1;
            let id = log.last_id;
            let message = FakeMessage {
                id,
                from_bot: false,
                text: text.to_owned(),
                reply_markup: None,
                force_reply: false,
                reply_to: to,
                sent_markup: None,
            };
            log.messages.push(message.clone());
            let mut json = world.message_json(chat, &message);
            if let Some(replied) = replied {
                json["reply_to_message"] = replied;
            }
            world.queue_update("message", json);
            id
        };
        self.shared.touch();
        id
    }

    /// The person of `chat` presses a button with `data` under message `message`; the
    /// callback query's id.
    pub fn user_presses(&self, chat: i64, message: i64, data: &str) -> String {
        let query = {
            let mut world = self.shared.world();
            let shown = world.message(chat, message).expect("pressed a message that does not exist");
            world.last_query += 1;
            let query = format!("q{}", world.last_query);
            world.open_queries.insert(query.clone());
            let press = json!({
                "id": query,
                "from": world.user_json(chat),
                "message": world.message_json(chat, &shown),
                "chat_instance": "-4040",
                "data": data,
            });
            world.queue_update("callback_query", press);
            query
        };
        self.shared.touch();
        query
    }

    /// The person presses the button whose text is `text` under message `message`.
    pub fn press_button(&self, chat: i64, message: i64, text: &str) -> String {
        let shown = self.message(chat, message).expect("no such message");
        let (_, data) = shown
            .buttons()
            .into_iter()
            .find(|(button, _)| button == text)
            .unwrap_or_else(|| panic!("no button {text:?} in {:?}", shown.button_texts()));
        self.user_presses(chat, message, &data)
    }

    /// The bot sends `text` with no buttons, as if through an earlier run.
    pub fn bot_sends(&self, chat: i64, text: &str) -> i64 {
        let id = self.shared.world().add_bot_message(chat, text, None, false, None);
        self.shared.touch();
        id
    }

    /// Every message of `chat`, oldest first.
    pub fn messages(&self, chat: i64) -> Vec<FakeMessage> {
        self.shared.world().chats.get(&chat).map(|log| log.messages.clone()).unwrap_or_default()
    }

    /// The bot's messages in `chat`, oldest first.
    pub fn bot_messages(&self, chat: i64) -> Vec<FakeMessage> {
        self.messages(chat).into_iter().filter(|m| m.from_bot).collect()
    }

    /// Message `id` of `chat`, as it is now.
    pub fn message(&self, chat: i64, id: i64) -> Option<FakeMessage> {
        self.shared.world().message(chat, id)
    }

    /// Every `answerCallbackQuery` so far.
    pub fn callback_answers(&self) -> Vec<CallbackAnswer> {
        self.shared.world().answers.clone()
    }

    /// The next `n` `getUpdates` calls fail with `status` (409 Conflict, 429 with
    /// `retry_after` 1, or a proxy's 502 page).
    pub fn fail_next_get_updates(&self, status: u16, n: usize) {
        self.shared.world().get_updates_failures.extend(std::iter::repeat_n(status, n));
    }

    /// `getUpdates` failures still to come.
    pub fn get_updates_failures_left(&self) -> usize {
        self.shared.world().get_updates_failures.len()
    }

    /// How many `getUpdates` calls came in.
    pub fn get_updates_calls(&self) -> usize {
        self.shared.world().get_updates_calls
    }

    /// Every `sendMessage` answer takes `latency` after the message exists.
    pub fn set_latency(&self, latency: Duration) {
        self.shared.world().latency = latency;
    }

    /// The next `sendMessage` is carried out, but its answer is lost (a 502 comes back).
    pub fn lose_next_send(&self) {
        self.shared.world().lose_next_send = true;
    }

    /// Every update made so far is sent once more by the next `getUpdates`, whatever its
    /// offset: a server that lost track of what was confirmed.
    pub fn redeliver_all(&self) {
        {
            let mut world = self.shared.world();
            world.again = world.history.clone();
        }
        self.shared.touch();
    }

    /// `getUpdates` calls being answered now (a long poll a client gave up on counts until
    /// the server notices or its timeout passes).
    pub fn polls_in_flight(&self) -> usize {
        self.shared.world().polls_in_flight
    }

    /// Updates the bot has not yet confirmed (by asking from past them).
    pub fn unconfirmed(&self) -> usize {
        let world = self.shared.world();
        world.queue.len() + world.again.len() + world.again_sent.len()
    }

    /// Waits until `check` gives something (re-checked on every change in the fake); fails
    /// the test after 10 seconds.
    pub async fn until<T>(&self, what: &str, mut check: impl FnMut(&FakeTelegram) -> Option<T>) -> T {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let mut changed = self.shared.changed.subscribe();
            if let Some(found) = check(self) {
                return found;
            }
            if tokio::time::timeout_at(deadline, changed.changed()).await.is_err() {
                panic!("timed out waiting for {what}");
            }
        }
    }

    /// Waits until every update made so far was handled: the bot has asked for updates from
    /// past them, which it does only after handling a batch.
    pub async fn until_confirmed(&self) {
        self.until("every update to be confirmed", |fake| (fake.unconfirmed() == 0).then_some(())).await;
    }
}

impl World {
    fn message(&self, chat: i64, id: i64) -> Option<FakeMessage> {
        self.chats.get(&chat)?.messages.iter().find(|m| m.id == id).cloned()
    }

    fn message_mut(&mut self, chat: i64, id: i64) -> Option<&mut FakeMessage> {
        self.chats.get_mut(&chat)?.messages.iter_mut().find(|m| m.id == id)
    }

    fn add_bot_message(
        &mut self,
        chat: i64,
        text: &str,
        reply_markup: Option<Value>,
        force_reply: bool,
        reply_to: Option<i64>,
    ) -> i64 {
        let log = self.chats.entry(chat).or_default();
        log.last_id += 1;
        let id = log.last_id;
        log.messages.push(FakeMessage {
            id,
            from_bot: true,
            text: text.to_owned(),
            sent_markup: reply_markup.clone(),
            reply_markup,
            force_reply,
            reply_to,
        });
        id
    }

    fn queue_update(&mut self, kind: &str, payload: Value) {
        self.last_update_id += 1;
        let update = json!({"update_id": self.last_update_id, kind: payload});
        self.queue.push_back(update.clone());
        self.history.push(update);
    }

    fn user_json(&self, chat: i64) -> Value {
        let mut user = json!({"id": chat, "is_bot": false, "first_name": format!("Person {chat}")});
        if let Some(username) = self.usernames.get(&chat) {
            user["username"] = json!(username);
        }
        user
    }

    fn chat_json(&self, chat: i64) -> Value {
        let mut json = json!({"id": chat, "type": "private", "first_name": format!("Person {chat}")});
        if let Some(username) = self.usernames.get(&chat) {
            json["username"] = json!(username);
        }
        json
    }

    fn message_json(&self, chat: i64, message: &FakeMessage) -> Value {
        let from = if message.from_bot {
            json!({"id": BOT_ID, "is_bot": true, "first_name": "Beckon", "username": "beckon_test_bot"})
        } else {
            self.user_json(chat)
        };
        let mut json = json!({
            "message_id": message.id,
            "from": from,
            "chat": self.chat_json(chat),
            "date": 1_700_000_000 + message.id,
            "text": message.text,
        });
        if let Some(markup) = &message.reply_markup {
            json["reply_markup"] = markup.clone();
        }
        json
    }
}

fn ok(result: Value) -> Response {
    (StatusCode::OK, axum::Json(json!({"ok": true, "result": result}))).into_response()
}

fn refuse(code: u16, description: &str) -> Response {
    let status = StatusCode::from_u16(code).unwrap_or(StatusCode::BAD_REQUEST);
    (status, axum::Json(json!({"ok": false, "error_code": code, "description": description}))).into_response()
}

fn bad_gateway() -> Response {
    let page = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";
    (StatusCode::BAD_GATEWAY, [("content-type", "text/html")], page).into_response()
}

const NOT_MODIFIED: &str = "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message";
const NOT_FOUND: &str = "Bad Request: message to edit not found";
const CANT_EDIT: &str = "Bad Request: message can't be edited";

/// An inline keyboard from a request's `reply_markup`, if that is what it is.
fn inline_keyboard(markup: &Value) -> Option<Value> {
    markup.get("inline_keyboard").map(|_| markup.clone())
}

async fn call(State(shared): State<Arc<Shared>>, Path((bot, method)): Path<(String, String)>, body: Bytes) -> Response {
    if bot != format!("bot{}", shared.token) {
        return refuse(401, "Unauthorized");
    }
    let Ok(body) = serde_json::from_slice::<Value>(&body) else {
        return refuse(400, "Bad Request: can't parse JSON");
    };
    let response = match method.as_str() {
        "getUpdates" => return get_updates(&shared, &body).await,
        "sendMessage" => {
            let (response, latency) = {
                let mut world = shared.world();
                (send_message(&mut world, &body), world.latency)
            };
            shared.touch();
            // The message exists before its answer leaves: a client killed meanwhile never
            // hears of it.
            tokio::time::sleep(latency).await;
            response
        }
        "editMessageText" => edit(&mut shared.world(), &body, true),
        "editMessageReplyMarkup" => edit(&mut shared.world(), &body, false),
        "answerCallbackQuery" => answer_callback(&mut shared.world(), &body),
        _ => refuse(404, "Not Found"),
    };
    shared.touch();
    response
}

/// Counts a `getUpdates` call as in flight while it lives.
struct InFlight<'a>(&'a Shared);

impl<'a> InFlight<'a> {
    fn new(shared: &'a Shared) -> Self {
        shared.world().polls_in_flight += 1;
        InFlight(shared)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.world().polls_in_flight -= 1;
        self.0.touch();
    }
}

async fn get_updates(shared: &Shared, body: &Value) -> Response {
    let _in_flight = InFlight::new(shared);
    let offset = body["offset"].as_i64().unwrap_or(0);
    let timeout = Duration::from_secs(body["timeout"].as_u64().unwrap_or(0).min(LONGEST_POLL));
    let deadline = tokio::time::Instant::now() + timeout;
    {
        let mut world = shared.world();
        world.get_updates_calls += 1;
        // A new call means the last batch was handled.
        world.again_sent.clear();
        let failure = world.get_updates_failures.pop_front();
        drop(world);
        shared.touch();
        if let Some(status) = failure {
            return match status {
                409 => refuse(409, "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"),
                429 => (
                    StatusCode::TOO_MANY_REQUESTS,
                    axum::Json(json!({"ok": false, "error_code": 429, "description": "Too Many Requests: retry after 1", "parameters": {"retry_after": 1}})),
                )
                    .into_response(),
                502 => bad_gateway(),
                other => refuse(other, "Internal Server Error"),
            };
        }
    }
    loop {
        let mut changed = shared.changed.subscribe();
        let batch = {
            let mut world = shared.world();
            let before = world.queue.len();
            world.queue.retain(|update| update["update_id"].as_i64().unwrap_or(0) >= offset);
            let confirmed = world.queue.len() != before;
            let mut batch: Vec<Value> = std::mem::take(&mut world.again);
            world.again_sent.extend(batch.iter().cloned());
            batch.extend(world.queue.iter().cloned());
            drop(world);
            if confirmed || !batch.is_empty() {
                shared.touch();
            }
            batch
        };
        if !batch.is_empty() || tokio::time::Instant::now() >= deadline {
            return ok(Value::Array(batch));
        }
        if tokio::time::timeout_at(deadline, changed.changed()).await.is_err() {
            return ok(json!([]));
        }
    }
}

fn send_message(world: &mut World, body: &Value) -> Response {
    let (Some(chat), Some(text)) = (body["chat_id"].as_i64(), body["text"].as_str()) else {
        return refuse(400, "Bad Request: chat_id and text are required");
    };
    if !world.chats.contains_key(&chat) {
        return refuse(400, "Bad Request: chat not found");
    }
    if text.trim().is_empty() {
        return refuse(400, "Bad Request: message text is empty");
    }
    if text.encode_utf16().count() > 4096 {
        return refuse(400, "Bad Request: message is too long");
    }
    let markup = &body["reply_markup"];
    let keyboard = inline_keyboard(markup);
    let force_reply = markup["force_reply"].as_bool() == Some(true);
    let reply_to = body["reply_parameters"]["message_id"].as_i64();
    let id = world.add_bot_message(chat, text, keyboard, force_reply, reply_to);
    if std::mem::take(&mut world.lose_next_send) {
        return bad_gateway();
    }
    let message = world.message(chat, id).expect("just added");
    ok(world.message_json(chat, &message))
}

fn edit(world: &mut World, body: &Value, with_text: bool) -> Response {
    let (Some(chat), Some(id)) = (body["chat_id"].as_i64(), body["message_id"].as_i64()) else {
        return refuse(400, "Bad Request: chat_id and message_id are required");
    };
    let keyboard = inline_keyboard(&body["reply_markup"]);
    let text = if with_text {
        match body["text"].as_str() {
            Some(text) if !text.trim().is_empty() => Some(text.to_owned()),
            _ => return refuse(400, "Bad Request: message text is empty"),
        }
    } else {
        None
    };
    let Some(message) = world.message_mut(chat, id) else { return refuse(400, NOT_FOUND) };
    if !message.from_bot || message.force_reply {
        return refuse(400, CANT_EDIT);
    }
    let text = text.unwrap_or_else(|| message.text.clone());
    if text == message.text && keyboard == message.reply_markup {
        return refuse(400, NOT_MODIFIED);
    }
    message.text = text;
    message.reply_markup = keyboard;
    let message = message.clone();
    ok(world.message_json(chat, &message))
}

fn answer_callback(world: &mut World, body: &Value) -> Response {
    let query = body["callback_query_id"].as_str().unwrap_or_default().to_owned();
    if !world.open_queries.remove(&query) {
        return refuse(400, "Bad Request: query is too old and response timeout expired or query ID is invalid");
    }
    let text = body["text"].as_str().map(str::to_owned);
    world.answers.push(CallbackAnswer { query, text, show_alert: body["show_alert"].as_bool().unwrap_or(false) });
    ok(json!(true))
}
