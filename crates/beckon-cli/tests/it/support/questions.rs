//! Waiting for a question to reach Beckon, read over HTTP as the person's window reads them.

use std::time::{Duration, Instant};

use serde_json::Value;

/// How long between two reads of the list.
const POLL: Duration = Duration::from_millis(50);

/// The first question `GET list` returns (`list` a `/v1/questions…` URL, read with `token`),
/// once it returns one. After `within` the test fails with what `otherwise` says of the last
/// list read.
pub async fn first_listed(
    http: &reqwest::Client,
    list: &str,
    token: &str,
    within: Duration,
    otherwise: impl Fn(&Value) -> String,
) -> Value {
    let deadline = Instant::now() + within;
    loop {
        let listed: Value = http.get(list).bearer_auth(token).send().await.unwrap().json().await.unwrap();
        if let Some(first) = listed["questions"].as_array().and_then(|questions| questions.first()) {
            return first.clone();
        }
        assert!(Instant::now() < deadline, "{}", otherwise(&listed));
        tokio::time::sleep(POLL).await;
    }
}
