//! The callback receiver: a loopback HTTP server that records every delivery as it came (for
//! the signature and idempotency checks after the run) and sometimes answers 500, so that
//! deliveries are retried. It fails a given idempotency key at most twice, so every callback can
//! get through long before Beckon gives up on it.

use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;

/// Failures the receiver answers for one idempotency key at most.
const MAX_FAILURES_PER_KEY: u32 = 2;
/// One delivery in this many is answered with 500 (while the key may still fail).
const FAIL_ONE_IN: u64 = 4;

/// One delivery as received.
#[derive(Debug, Clone)]
pub struct Delivery {
    /// `Idempotency-Key`.
    pub key: Option<String>,
    /// `Beckon-Event`.
    pub event: Option<String>,
    /// `Beckon-Signature`.
    pub signature: Option<String>,
    /// The raw body, as signed.
    pub body: Bytes,
    /// When it arrived (Unix seconds).
    pub at_unix: i64,
    /// The status the receiver answered.
    pub answered: u16,
}

#[derive(Debug, Default)]
struct Book {
    deliveries: Vec<Delivery>,
    tries: HashMap<String, u32>,
    failures: HashMap<String, u32>,
}

#[derive(Clone)]
struct Shared {
    seed: u64,
    book: Arc<Mutex<Book>>,
}

/// A running receiver.
pub struct Receiver {
    /// Where Beckon posts.
    pub url: String,
    shared: Shared,
}

impl Receiver {
    /// Starts a receiver on 127.0.0.1 whose failures follow `seed`.
    pub async fn start(seed: u64) -> Receiver {
        let shared = Shared { seed, book: Arc::default() };
        let app = Router::new().route("/hooks/beckon", post(receive)).with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("the receiver can listen");
        let url = format!("http://{}/hooks/beckon", listener.local_addr().expect("the receiver has an address"));
        tokio::spawn(async move { axum::serve(listener, app).await });
        Receiver { url, shared }
    }

    /// Every delivery so far, in arrival order.
    pub fn deliveries(&self) -> Vec<Delivery> {
        self.shared.book.lock().unwrap_or_else(std::sync::PoisonError::into_inner).deliveries.clone()
    }
}

fn header(headers: &HeaderMap, name: &str) -> Option<String> {
    headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned)
}

/// Whether the `attempt`-th delivery of `key` fails: a pure function of the seed, so a replay
/// fails the same deliveries.
fn fails(seed: u64, key: &str, attempt: u32) -> bool {
    let mut hasher = DefaultHasher::new();
    (seed, key, attempt).hash(&mut hasher);
    hasher.finish().is_multiple_of(FAIL_ONE_IN)
}

async fn receive(State(shared): State<Shared>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let key = header(&headers, "idempotency-key");
    let mut book = shared.book.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let name = key.clone().unwrap_or_default();
    let attempt = {
        let tries = book.tries.entry(name.clone()).or_default();
        *tries += 1;
        *tries
    };
    let failed = book.failures.get(&name).copied().unwrap_or(0);
    let status = if failed < MAX_FAILURES_PER_KEY && fails(shared.seed, &name, attempt) {
        *book.failures.entry(name).or_default() += 1;
        StatusCode::INTERNAL_SERVER_ERROR
    } else {
        StatusCode::OK
    };
    let at_unix = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
    book.deliveries.push(Delivery {
        key,
        event: header(&headers, "beckon-event"),
        signature: header(&headers, "beckon-signature"),
        body,
        at_unix,
        answered: status.as_u16(),
    });
    status
}
