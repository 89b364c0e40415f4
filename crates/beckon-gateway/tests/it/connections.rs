//! Connections cannot exhaust the gateway: any local process may open them, without a token,
//! so they are capped, one that sends no request is closed after the header time limit, and a
//! body that stops arriving is answered 408. Long-polls outlive the header limit.

use crate::served;

use std::time::Duration;

use beckon_gateway::ConnectionLimits;
use serde_json::{Value, json};
use served::{Served, serve};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const LIMITS: ConnectionLimits = ConnectionLimits {
    max_connections: 8,
    max_local_connections: 8,
    header_timeout: Duration::from_millis(400),
    body_timeout: Duration::from_millis(400),
    max_long_polls: 64,
    long_polls_per_caller: 64,
    max_event_streams: 16,
    event_streams_per_caller: 16,
    max_mcp_sessions: 32,
    stranger_connections_per_address: 8,
};

/// Far more than any limit here: reaching it means the server never closed the connection.
const PATIENCE: Duration = Duration::from_secs(20);

async fn limited() -> Served {
    serve(|config| config.limits = LIMITS).await
}

/// Reads until the server closes the connection; what it sent first.
async fn until_closed(stream: &mut TcpStream) -> String {
    let mut answer = Vec::new();
    let read = tokio::time::timeout(PATIENCE, stream.read_to_end(&mut answer)).await;
    assert!(read.is_ok(), "the server kept the connection open for {PATIENCE:?}");
    String::from_utf8_lossy(&answer).into_owned()
}

async fn health(s: &Served) -> reqwest::StatusCode {
    let url = format!("{}/v1/health", s.gateway.url);
    s.http.get(url).bearer_auth(&s.gateway.token).send().await.unwrap().status()
}

#[tokio::test]
async fn idle_connections_are_capped_and_closed_and_the_gateway_keeps_answering() {
    let s = limited().await;
    let mut idle = Vec::new();
    for _ in 0..40 {
        idle.push(TcpStream::connect(s.gateway.addr).await.unwrap());
    }
    // Every one of them is closed by the server: those over the cap at once, the rest when
    // they have sent no request within the header limit.
    for stream in &mut idle {
        assert_eq!(until_closed(stream).await, "", "an idle connection is closed without an answer");
    }
    assert_eq!(health(&s).await, reqwest::StatusCode::OK);
}

#[tokio::test]
async fn connections_over_the_cap_are_closed_at_once_and_the_place_comes_back() {
    let s = serve(|config| config.limits = ConnectionLimits { header_timeout: PATIENCE * 2, ..LIMITS }).await;
    let mut held = Vec::new();
    for _ in 0..LIMITS.max_connections {
        held.push(TcpStream::connect(s.gateway.addr).await.unwrap());
    }
    for _ in 0..4 {
        let mut over = TcpStream::connect(s.gateway.addr).await.unwrap();
        assert_eq!(until_closed(&mut over).await, "", "a connection over the cap is closed");
    }
    let mut byte = [0u8; 1];
    for stream in &held {
        let open = matches!(stream.try_read(&mut byte), Err(err) if err.kind() == std::io::ErrorKind::WouldBlock);
        assert!(open, "a connection within the cap stays open");
    }
    drop(held);
    // The server frees a place when it sees a connection close: ask until it has.
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let url = format!("{}/v1/health", s.gateway.url);
        match s.http.get(url).bearer_auth(&s.gateway.token).send().await {
            Ok(response) if response.status() == reqwest::StatusCode::OK => break,
            _ => assert!(tokio::time::Instant::now() < deadline, "no place came back"),
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_request_head_that_never_ends_is_cut_off() {
    let s = limited().await;
    let mut stream = TcpStream::connect(s.gateway.addr).await.unwrap();
    let port = s.gateway.addr.port();
    stream.write_all(format!("GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n").as_bytes()).await.unwrap();
    let answer = until_closed(&mut stream).await;
    assert!(!answer.contains("200 OK"), "{answer}");
    assert_eq!(health(&s).await, reqwest::StatusCode::OK);
}

#[tokio::test]
async fn a_kept_alive_connection_left_idle_is_closed() {
    let s = limited().await;
    let mut stream = TcpStream::connect(s.gateway.addr).await.unwrap();
    let head = format!(
        "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {}\r\n\r\n",
        s.gateway.addr.port(),
        s.gateway.token
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let answer = until_closed(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
}

#[tokio::test]
async fn a_body_that_stops_arriving_is_answered_408() {
    let s = limited().await;
    let mut stream = TcpStream::connect(s.gateway.addr).await.unwrap();
    let head = format!(
        "POST /v1/questions HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"agent\": ",
        s.gateway.addr.port(),
        s.gateway.token
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let answer = until_closed(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("the request body did not arrive within 0.4 s"), "{answer}");
}

#[tokio::test]
async fn a_long_poll_outlives_the_header_limit() {
    let s = limited().await;
    let asked: Value = s
        .http
        .post(format!("{}/v1/questions", s.gateway.url))
        .bearer_auth(&s.gateway.token)
        .json(&json!({"agent": "deploy-bot", "questions": [{"question": "Deploy?", "header": "Deploy",
            "options": [{"label": "Yes"}, {"label": "No"}]}]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = asked["request_id"].as_str().unwrap();
    let polled = s
        .http
        .get(format!("{}/v1/questions/{id}?wait=2", s.gateway.url))
        .bearer_auth(&s.gateway.token)
        .send()
        .await
        .unwrap();
    assert_eq!(polled.status(), reqwest::StatusCode::OK);
    let question: Value = polled.json().await.unwrap();
    assert_eq!(question["status"], "pending");
}

#[test]
fn no_gateway_type_shows_the_token() {
    let discovery = beckon_gateway::Discovery {
        url: "http://127.0.0.1:7393".into(),
        token: "s3cr3t-token".into(),
        pid: 1,
        socket: None,
    };
    let shown = format!("{discovery:?}");
    assert!(!shown.contains("s3cr3t-token"), "{shown}");
    assert!(shown.contains("127.0.0.1:7393"), "{shown}");
}

#[tokio::test]
async fn a_running_gateway_does_not_show_its_token() {
    let s = limited().await;
    let shown = format!("{:?}", s.gateway);
    assert!(!shown.contains(&s.gateway.token), "{shown}");
}
