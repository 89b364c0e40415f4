//! One client of the gateway, named by its own `X-Beckon-Client`. A request that gets no
//! response (a connection refused, reset or cut short) is *lost*: the server may or may not
//! have acted on it, and the client waits for the next start before deciding what to do.

use std::time::Duration;

use reqwest::Method;
use serde_json::Value;
use tokio::sync::watch;

use crate::support::server::{Endpoint, Status};

/// How long one request may take before it counts as lost.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// How long to wait before retrying a request lost while the server stayed up.
const UNEXPLAINED_PAUSE: Duration = Duration::from_millis(50);

/// What became of one request.
#[derive(Debug)]
pub enum Attempt {
    /// The server answered.
    Replied {
        /// The HTTP status.
        status: u16,
        /// The JSON body (`null` when there was none).
        body: Value,
    },
    /// No response: the server may or may not have acted on it.
    Lost {
        /// The server start the request went to.
        generation: u64,
    },
}

/// Counts of what a client went through.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    /// Requests sent.
    pub requests: u64,
    /// Requests lost to a kill.
    pub lost: u64,
    /// Refused with 429 (and retried once allowed).
    pub rate_limited: u64,
    /// Requests lost while the server stayed up: each is described here.
    pub unexplained: Vec<String>,
}

/// A client.
pub struct Caller {
    http: reqwest::Client,
    name: String,
    status: watch::Receiver<Status>,
    /// What it went through.
    pub tally: Tally,
}

impl Caller {
    /// A client called `name` of the server whose status `status` follows.
    pub fn new(name: String, status: watch::Receiver<Status>) -> Caller {
        let http = reqwest::Client::builder()
            .no_proxy()
            // A fresh connection per request: a kept-alive one could outlive a kill.
            .pool_max_idle_per_host(0)
            .timeout(REQUEST_TIMEOUT)
            .build()
            .expect("an HTTP client can be built");
        Caller { http, name, status, tally: Tally::default() }
    }

    /// The server's generation and endpoint, waiting while it is down.
    pub async fn up(&mut self) -> (u64, Endpoint) {
        let status = self
            .status
            .wait_for(|status| status.endpoint.is_some())
            .await
            .expect("the server's status is published for as long as the test runs")
            .clone();
        let endpoint = status.endpoint.expect("waited for an endpoint");
        (status.generation, endpoint)
    }

    /// The status now.
    pub fn status(&self) -> Status {
        self.status.borrow().clone()
    }

    /// Sends one request (again after a 429, which the server refused without acting).
    pub async fn once(&mut self, method: Method, path: &str, body: Option<&Value>) -> Attempt {
        self.once_with(method, path, body, &[]).await
    }

    /// [`Caller::once`] with extra headers.
    pub async fn once_with(
        &mut self,
        method: Method,
        path: &str,
        body: Option<&Value>,
        headers: &[(&str, &str)],
    ) -> Attempt {
        loop {
            let (generation, endpoint) = self.up().await;
            let mut request = self
                .http
                .request(method.clone(), format!("{}{path}", endpoint.url))
                .bearer_auth(&endpoint.token)
                .header("x-beckon-client", &self.name);
            for (name, value) in headers {
                request = request.header(*name, *value);
            }
            if let Some(body) = body {
                request = request.json(body);
            }
            self.tally.requests += 1;
            let response = match request.send().await {
                Ok(response) => response,
                Err(err) => return self.lost(generation, &method, path, &err.to_string()),
            };
            let status = response.status().as_u16();
            let retry_after =
                response.headers().get("retry-after").and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
            let bytes = match response.bytes().await {
                Ok(bytes) => bytes,
                Err(err) => return self.lost(generation, &method, path, &err.to_string()),
            };
            if status == 429 {
                self.tally.rate_limited += 1;
                tokio::time::sleep(Duration::from_secs(retry_after.unwrap_or(1))).await;
                continue;
            }
            let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
            return Attempt::Replied { status, body };
        }
    }

    fn lost(&mut self, generation: u64, method: &Method, path: &str, error: &str) -> Attempt {
        let status = self.status();
        if status.generation == generation && status.endpoint.is_some() {
            // The server is marked down before every kill, so this loss was not the test's doing.
            self.tally.unexplained.push(format!("{} {method} {path} (start {generation}): {error}", self.name));
        } else {
            self.tally.lost += 1;
        }
        Attempt::Lost { generation }
    }

    /// After a lost request: waits until a later start of the server is up (or briefly, when
    /// the loss was not due to a kill).
    pub async fn after_loss(&mut self, generation: u64) {
        let status = self.status();
        if status.generation == generation && status.endpoint.is_some() {
            tokio::time::sleep(UNEXPLAINED_PAUSE).await;
            return;
        }
        self.status
            .wait_for(|status| status.generation > generation && status.endpoint.is_some())
            .await
            .expect("the server's status is published for as long as the test runs");
    }

    /// Sends a request that is safe to repeat until the server answers it.
    pub async fn retrying(&mut self, method: Method, path: &str, body: Option<&Value>) -> (u16, Value) {
        loop {
            match self.once(method.clone(), path, body).await {
                Attempt::Replied { status, body } => return (status, body),
                Attempt::Lost { generation } => self.after_loss(generation).await,
            }
        }
    }

    /// `GET path` until answered.
    pub async fn get(&mut self, path: &str) -> (u16, Value) {
        self.retrying(Method::GET, path, None).await
    }
}
