//! A fake Telegram Bot API on loopback for the real app to poll: `getUpdates` hands out what a
//! test has the person send, `sendMessage` is recorded, every other method succeeds. Plain
//! HTTP/1.1 over tokio, enough for the app's client (one request at a time per connection,
//! bodies with a `Content-Length`).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use crate::Failure;

/// The longest a `getUpdates` is held when nothing is waiting: shorter than the app asks for,
/// which the Bot API allows, so that a stopped test is not held up.
const LONGEST_POLL: Duration = Duration::from_secs(1);

#[derive(Debug, Default)]
struct World {
    /// Updates not yet confirmed by an offset past them.
    updates: Vec<Value>,
    last_update: i64,
    last_message: i64,
    /// Every `sendMessage`: the chat and the text.
    sent: Vec<(i64, String)>,
    polls: usize,
}

#[derive(Debug, Default)]
struct Shared {
    world: Mutex<World>,
    changed: Notify,
}

impl Shared {
    fn world(&self) -> std::sync::MutexGuard<'_, World> {
        self.world.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The fake; stops when dropped.
#[derive(Debug)]
pub struct FakeTelegram {
    base: String,
    shared: Arc<Shared>,
    server: JoinHandle<()>,
}

impl Drop for FakeTelegram {
    fn drop(&mut self) {
        self.server.abort();
    }
}

impl FakeTelegram {
    /// Listens on a free port of 127.0.0.1.
    pub async fn start() -> Result<FakeTelegram, Failure> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let base = format!("http://{}", listener.local_addr()?);
        let shared = Arc::new(Shared::default());
        let serving = shared.clone();
        let server = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve(stream, serving.clone()));
            }
        });
        Ok(FakeTelegram { base, shared, server })
    }

    /// The address to give Beckon as Telegram's API address.
    pub fn base(&self) -> String {
        self.base.clone()
    }

    /// How many `getUpdates` calls came in.
    pub fn polls(&self) -> usize {
        self.shared.world().polls
    }

    /// The person of private chat `chat` sends `text` to the bot.
    pub fn user_sends(&self, chat: i64, text: &str) {
        {
            let mut world = self.shared.world();
            world.last_update += 1;
            world.last_message += 1;
            let update = json!({
                "update_id": world.last_update,
                "message": {
                    "message_id": world.last_message,
                    "date": 1,
                    "chat": {"id": chat, "type": "private"},
                    "from": {"id": chat, "is_bot": false, "first_name": "Ada"},
                    "text": text,
                },
            });
            world.updates.push(update);
        }
        self.shared.changed.notify_waiters();
    }

    /// What the bot sent to `chat`, oldest first.
    pub fn sent_to(&self, chat: i64) -> Vec<String> {
        self.shared.world().sent.iter().filter(|(to, _)| *to == chat).map(|(_, text)| text.clone()).collect()
    }
}

/// Answers the requests of one connection until it closes.
async fn serve(stream: TcpStream, shared: Arc<Shared>) {
    let mut stream = BufReader::new(stream);
    loop {
        let Ok(Some((method, body))) = read_request(&mut stream).await else { return };
        let result = answer(&shared, &method, &body).await;
        let reply = json!({"ok": true, "result": result}).to_string();
        let head =
            format!("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n", reply.len());
        if stream.get_mut().write_all(format!("{head}{reply}").as_bytes()).await.is_err() {
            return;
        }
    }
}

/// The Bot API method (the last part of `/bot<token>/<method>`) and the JSON body.
async fn read_request(stream: &mut BufReader<TcpStream>) -> Result<Option<(String, Value)>, Failure> {
    let mut line = String::new();
    if stream.read_line(&mut line).await? == 0 {
        return Ok(None);
    }
    let path = line.split_whitespace().nth(1).unwrap_or_default();
    let method = path.rsplit('/').next().unwrap_or_default().to_owned();
    let mut length = 0;
    loop {
        let mut header = String::new();
        stream.read_line(&mut header).await?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse()?;
        }
    }
    let mut body = vec![0; length];
    stream.read_exact(&mut body).await?;
    Ok(Some((method, serde_json::from_slice(&body).unwrap_or(Value::Null))))
}

async fn answer(shared: &Shared, method: &str, body: &Value) -> Value {
    match method {
        "getUpdates" => {
            let offset = body["offset"].as_i64().unwrap_or(0);
            let changed = shared.changed.notified();
            let waiting = {
                let mut world = shared.world();
                world.polls += 1;
                world.updates.retain(|update| update["update_id"].as_i64().unwrap_or(0) >= offset);
                world.updates.clone()
            };
            if !waiting.is_empty() {
                return Value::Array(waiting);
            }
            let _ = tokio::time::timeout(LONGEST_POLL, changed).await;
            Value::Array(shared.world().updates.clone())
        }
        "sendMessage" => {
            let chat = body["chat_id"].as_i64().unwrap_or(0);
            let text = body["text"].as_str().unwrap_or_default().to_owned();
            let mut world = shared.world();
            world.last_message += 1;
            world.sent.push((chat, text.clone()));
            json!({"message_id": world.last_message, "date": 1, "chat": {"id": chat, "type": "private"}, "text": text})
        }
        _ => Value::Bool(true),
    }
}
