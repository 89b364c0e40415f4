//! The private socket in the data folder: Beckon's own clients reach the gateway there while
//! another local user holds every TCP place; it answers the same routes behind the same token,
//! its Host header means nothing; a socket a killed run left behind is replaced, a live one or
//! a file that is not a socket is left alone; a data folder too long for a socket's path falls
//! back to TCP; and the socket's connection cap is its own.

use crate::served;

use std::path::{Path, PathBuf};
use std::time::Duration;

use beckon_api::views::Health;
use beckon_gateway::{ConnectionLimits, GatewayClient, GatewayConfig, Locator};
use beckon_runtime::{Beckon, RuntimeConfig, StartOptions};
use serde_json::Value;
use served::serve;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, UnixStream};

/// Far more than any limit here: reaching it means the server never closed the connection.
const PATIENCE: Duration = Duration::from_secs(20);

fn socket_of(dir: &Path) -> PathBuf {
    dir.join("gateway.sock")
}

fn discovery(dir: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(dir.join("gateway.json")).unwrap()).unwrap()
}

/// `head` sent over the socket at `path` (with `Connection: close`); the whole answer.
async fn over_socket(path: &Path, head: &str) -> String {
    let mut stream = UnixStream::connect(path).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut answer)).await.unwrap().unwrap();
    String::from_utf8_lossy(&answer).into_owned()
}

fn health_head(host: &str, token: Option<&str>) -> String {
    let auth = token.map(|token| format!("Authorization: Bearer {token}\r\n")).unwrap_or_default();
    format!("GET /v1/health HTTP/1.1\r\nHost: {host}\r\n{auth}Connection: close\r\n\r\n")
}

/// A client found as the `beckon` command finds one: through `gateway.json`.
async fn found_health(dir: &Path) -> Result<Health, beckon_gateway::ClientError> {
    let endpoint = Locator::new(dir).locate()?;
    GatewayClient::new(GatewayClient::http().unwrap(), endpoint, "socket-test").health().await
}

/// Beckon and its gateway on `dir` (the runtime holds the folder's lock, as in the app).
async fn start_on(dir: &Path) -> (Beckon, beckon_gateway::RunningGateway) {
    let beckon = Beckon::start(RuntimeConfig::new(dir), StartOptions::default()).await.unwrap();
    let mut config = GatewayConfig::new(dir);
    config.port = 0;
    let gateway = beckon_gateway::start(beckon.clone(), config).await.unwrap();
    (beckon, gateway)
}

#[tokio::test]
async fn own_clients_use_the_socket_while_tcp_is_full_and_tcp_where_there_is_none() {
    let limits = ConnectionLimits { max_connections: 8, header_timeout: PATIENCE * 2, ..ConnectionLimits::default() };
    let s = serve(|config| config.limits = limits).await;
    let dir = s.dir.path();
    let mut held = Vec::new();
    for _ in 0..limits.max_connections {
        held.push(TcpStream::connect(s.gateway.addr).await.unwrap());
    }
    let mut over = TcpStream::connect(s.gateway.addr).await.unwrap();
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(PATIENCE, over.read_to_end(&mut rest)).await;
    assert!(matches!(closed, Ok(Ok(0))), "TCP is full: one more connection is closed at once");

    let health = found_health(dir).await.unwrap();
    assert_eq!(health.status, "ok", "{health:?}");

    // An older Beckon writes no socket into gateway.json: its clients use TCP, full for now.
    let mut older = discovery(dir);
    older.as_object_mut().unwrap().remove("socket");
    std::fs::write(dir.join("gateway.json"), older.to_string()).unwrap();
    assert!(found_health(dir).await.is_err(), "over TCP, while every place is held");
    drop(held);
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while found_health(dir).await.is_err() {
        assert!(tokio::time::Instant::now() < deadline, "the client never reached the gateway over TCP");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn the_socket_answers_the_same_routes_behind_the_same_token_whatever_the_host() {
    let s = serve(|_| {}).await;
    let socket = socket_of(s.dir.path());
    assert_eq!(discovery(s.dir.path())["socket"], socket.to_str().unwrap());
    let token = s.gateway.token.as_str();
    // No browser can reach a Unix socket, so there is no DNS rebinding to refuse by the Host.
    for host in ["localhost", "evil.example", ""] {
        let answer = over_socket(&socket, &health_head(host, Some(token))).await;
        assert!(answer.starts_with("HTTP/1.1 200 OK"), "Host {host:?}: {answer}");
    }
    let unauthorized = over_socket(&socket, &health_head("localhost", None)).await;
    assert!(unauthorized.starts_with("HTTP/1.1 401"), "{unauthorized}");
    let wrong = over_socket(&socket, &health_head("localhost", Some("not-the-token"))).await;
    assert!(wrong.starts_with("HTTP/1.1 401"), "{wrong}");
    let from_a_page = format!(
        "GET /v1/health HTTP/1.1\r\nHost: localhost\r\nOrigin: https://evil.example\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n"
    );
    assert!(over_socket(&socket, &from_a_page).await.starts_with("HTTP/1.1 403"));
    // Over TCP the Host is still checked.
    let tcp = s
        .http
        .get(format!("{}/v1/health", s.gateway.url))
        .bearer_auth(token)
        .header("host", "evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(tcp.status(), reqwest::StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn a_stale_socket_is_replaced_and_stopping_removes_the_socket() {
    let dir = tempfile::tempdir().unwrap();
    let socket = socket_of(dir.path());
    // A killed run's socket: the file stays, nobody listens.
    drop(std::os::unix::net::UnixListener::bind(&socket).unwrap());
    assert!(socket.exists());
    let (beckon, gateway) = start_on(dir.path()).await;
    let answer = over_socket(&socket, &health_head("localhost", Some(&gateway.token))).await;
    assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
    gateway.stop();
    assert!(!socket.exists(), "stopping removes the socket");
    assert!(!dir.path().join("gateway.json").exists());
    beckon.shutdown().await;
}

#[tokio::test]
async fn a_live_socket_and_a_file_that_is_not_a_socket_are_left_alone() {
    let s = serve(|_| {}).await;
    let served_socket = socket_of(s.dir.path());
    assert!(over_socket(&served_socket, &health_head("localhost", Some(&s.gateway.token))).await.contains("200 OK"));
    // A second gateway pointed at a folder another process serves a socket in.
    let live = tempfile::tempdir().unwrap();
    let listener = std::os::unix::net::UnixListener::bind(socket_of(live.path())).unwrap();
    let mut config = GatewayConfig::new(live.path());
    config.port = 0;
    let second = beckon_gateway::start(s.beckon.clone(), config).await.unwrap();
    assert!(discovery(live.path()).get("socket").is_none(), "it does without a socket");
    let _ = UnixStream::connect(socket_of(live.path())).await.unwrap();
    listener.set_nonblocking(true).unwrap();
    let mut accepted = 0;
    while listener.accept().is_ok() {
        accepted += 1;
    }
    assert!(accepted >= 1, "the live socket still belongs to its server");
    second.stop();
    assert!(socket_of(live.path()).exists(), "stopping does not remove a socket it did not bind");

    let not_a_socket = tempfile::tempdir().unwrap();
    std::fs::write(socket_of(not_a_socket.path()), "notes").unwrap();
    let mut config = GatewayConfig::new(not_a_socket.path());
    config.port = 0;
    let third = beckon_gateway::start(s.beckon.clone(), config).await.unwrap();
    assert_eq!(std::fs::read_to_string(socket_of(not_a_socket.path())).unwrap(), "notes");
    assert!(discovery(not_a_socket.path()).get("socket").is_none());
    third.stop();
}

#[tokio::test]
async fn a_data_folder_too_long_for_a_socket_path_falls_back_to_tcp() {
    let base = tempfile::tempdir().unwrap();
    let short = base.path().join("s");
    let (beckon, gateway) = start_on(&short).await;
    assert_eq!(discovery(&short)["socket"], socket_of(&short).to_str().unwrap(), "where the path fits, a socket");
    gateway.stop();
    beckon.shutdown().await;

    let long = base
        .path()
        .join("a-data-folder-whose-path-is-longer-than-any-unix-socket-address-can-hold")
        .join("x".repeat(60));
    assert!(socket_of(&long).as_os_str().len() > 107);
    let (beckon, gateway) = start_on(&long).await;
    assert!(discovery(&long).get("socket").is_none());
    assert!(!socket_of(&long).exists());
    let health = found_health(&long).await.unwrap();
    assert_eq!(health.status, "ok", "reached over TCP: {health:?}");
    gateway.stop();
    beckon.shutdown().await;
}

#[tokio::test]
async fn the_socket_has_a_connection_cap_of_its_own() {
    let limits = ConnectionLimits {
        max_connections: 4,
        max_local_connections: 3,
        header_timeout: PATIENCE * 2,
        ..ConnectionLimits::default()
    };
    let s = serve(|config| config.limits = limits).await;
    let socket = socket_of(s.dir.path());
    let mut held_tcp = Vec::new();
    for _ in 0..limits.max_connections {
        held_tcp.push(TcpStream::connect(s.gateway.addr).await.unwrap());
    }
    // TCP is full; the socket's places are all free.
    let mut held_local = Vec::new();
    for _ in 0..limits.max_local_connections {
        held_local.push(UnixStream::connect(&socket).await.unwrap());
    }
    let mut over = UnixStream::connect(&socket).await.unwrap();
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(PATIENCE, over.read_to_end(&mut rest)).await;
    assert!(matches!(closed, Ok(Ok(0))), "one more connection than the socket's cap is closed at once");
    let mut byte = [0u8; 1];
    for stream in &held_local {
        let open = matches!(stream.try_read(&mut byte), Err(err) if err.kind() == std::io::ErrorKind::WouldBlock);
        assert!(open, "a connection within the socket's cap stays open");
    }
    drop(held_local);
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let answer = over_socket(&socket, &health_head("localhost", Some(&s.gateway.token))).await;
        if answer.starts_with("HTTP/1.1 200 OK") {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "no place on the socket came back");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
