//! A `gateway.json` left behind by a crash is not trusted: the client sends nothing when the
//! process it names is gone, and sends neither the token nor a question to a server that
//! cannot prove it knows the token. An answer larger than any the gateway gives is not read.

use std::sync::{Arc, Mutex};

use beckon_gateway::{ClientError, Discovery, GatewayClient, Locator, proof};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const TOKEN: &str = "the-token-of-the-beckon-that-crashed";

/// A server on loopback that records every byte it receives and answers each request with
/// what `answer` makes of the request's head.
struct Stranger {
    url: String,
    received: Arc<Mutex<Vec<u8>>>,
}

impl Stranger {
    async fn start(answer: fn(&str) -> String) -> Stranger {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let received = Arc::new(Mutex::new(Vec::new()));
        let record = received.clone();
        tokio::spawn(async move {
            loop {
                let Ok((mut stream, _)) = listener.accept().await else { return };
                let record = record.clone();
                tokio::spawn(async move {
                    let mut buffer = vec![0u8; 64 * 1024];
                    let mut seen = Vec::new();
                    while let Ok(n) = stream.read(&mut buffer).await {
                        if n == 0 {
                            return;
                        }
                        seen.extend_from_slice(&buffer[..n]);
                        record.lock().unwrap().extend_from_slice(&buffer[..n]);
                        if seen.windows(4).any(|w| w == b"\r\n\r\n") {
                            let head = String::from_utf8_lossy(&seen).into_owned();
                            let _ = stream.write_all(answer(&head).as_bytes()).await;
                            seen.clear();
                        }
                    }
                });
            }
        });
        Stranger { url, received }
    }

    fn received(&self) -> String {
        String::from_utf8_lossy(&self.received.lock().unwrap()).into_owned()
    }
}

fn ok_json(body: &str) -> String {
    format!("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}", body.len())
}

fn client_of(dir: &std::path::Path, url: &str, pid: u32) -> Result<GatewayClient, ClientError> {
    Discovery { url: url.to_owned(), token: TOKEN.into(), pid, socket: None }.write(dir).unwrap();
    let endpoint = Locator::new(dir).locate()?;
    Ok(GatewayClient::new(GatewayClient::http().unwrap(), endpoint, "test"))
}

fn question() -> serde_json::Value {
    json!({"agent": "deploy-bot", "questions": [{"question": "Ship the secret plan?", "header": "Ship",
        "options": [{"label": "Yes"}, {"label": "No"}]}]})
}

#[tokio::test]
async fn a_server_that_cannot_prove_the_token_is_sent_nothing() {
    for answer in [
        (|_: &str| ok_json(r#"{"proof": "00"}"#)) as fn(&str) -> String,
        |_: &str| ok_json(r#"{"status": "ok"}"#),
        |_: &str| "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".to_owned(),
    ] {
        let stranger = Stranger::start(answer).await;
        let dir = tempfile::tempdir().unwrap();
        let client = client_of(dir.path(), &stranger.url, std::process::id()).unwrap();

        let err = client.ask(&question()).await.unwrap_err();

        assert!(matches!(err, ClientError::Impostor { .. }), "{err}");
        assert_eq!(
            err.to_string(),
            format!(
                "the server at {} is not the Beckon that wrote gateway.json (it cannot prove it knows the token); \
                 nothing was sent to it. If Beckon crashed, start it again",
                stranger.url
            )
        );
        let received = stranger.received();
        assert!(received.starts_with("GET /v1/proof?challenge="), "{received}");
        assert!(!received.contains(TOKEN), "the token was sent: {received}");
        assert!(!received.to_lowercase().contains("authorization"), "{received}");
        assert!(!received.contains("secret plan"), "the question was sent: {received}");
        assert!(client.pending().await.is_err(), "a later call is refused too");
        assert!(!stranger.received().contains(TOKEN));
    }
}

#[tokio::test]
async fn a_file_whose_process_is_gone_is_not_followed() {
    let stranger = Stranger::start(|_| ok_json("{}")).await;
    let dir = tempfile::tempdir().unwrap();
    let mut ended = std::process::Command::new("true").spawn().unwrap();
    let pid = ended.id();
    ended.wait().unwrap();

    let err = client_of(dir.path(), &stranger.url, pid).unwrap_err();

    assert!(matches!(err, ClientError::Stale { .. }), "{err}");
    assert!(err.to_string().starts_with("Beckon is not running: "), "{err}");
    assert!(err.to_string().contains(&format!("names process {pid}, which has ended")), "{err}");
    assert_eq!(stranger.received(), "", "nothing is sent");
}

#[tokio::test]
async fn an_answer_larger_than_any_the_gateway_gives_is_not_read() {
    // A server that knows the token, and then sends far too much.
    let stranger = Stranger::start(|head| {
        if let Some(challenge) = head.split("challenge=").nth(1).and_then(|rest| rest.get(..64)) {
            return ok_json(&json!({"proof": proof::proof(TOKEN, challenge)}).to_string());
        }
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1073741824\r\n\r\n{".to_owned()
    })
    .await;
    let dir = tempfile::tempdir().unwrap();
    let client = client_of(dir.path(), &stranger.url, std::process::id()).unwrap();

    let err = client.pending().await.unwrap_err();

    assert!(matches!(err, ClientError::TooLarge { .. }), "{err}");
    assert!(stranger.received().contains(TOKEN), "the proven server was trusted with the token");
}
