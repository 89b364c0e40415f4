//! Where a team server listens and is reached: plain HTTP beyond loopback only when asked for;
//! a public URL (a TLS reverse proxy's) carried by answer links and let through the Host check,
//! while other names are still refused; HTTPS served by Beckon itself from a certificate and key
//! in files, with files that cannot serve refused before anything starts.

use serde_json::{Value, json};

use crate::support::serve_start::{free_port, refused};
use crate::support::server::Server;

#[test]
fn plain_http_beyond_loopback_is_refused_unless_asked_for() {
    let said = refused(&["--listen", "0.0.0.0"]);
    assert!(said.contains("--allow-plain-http") && said.contains("reverse proxy"), "{said}");
    let said = refused(&["--public-url", "http://10.1.2.3:7393"]);
    assert!(said.contains("plain HTTP") && said.contains("https://"), "{said}");
    let said = refused(&["--public-url", "https://user:secret@beckon.example"]);
    assert!(said.contains("--public-url"), "{said}");
}

#[test]
fn tls_files_that_cannot_serve_are_refused_before_anything_starts() {
    let said = refused(&["--listen", "0.0.0.0", "--tls-cert", "absent-cert.pem"]);
    assert!(said.contains("--tls-key"), "{said}");
    let said = refused(&["--listen", "0.0.0.0", "--tls-cert", "absent-cert.pem", "--tls-key", "absent-key.pem"]);
    assert!(said.contains("absent-cert.pem") && said.contains("cannot read"), "{said}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_server_serves_https_with_its_own_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let made = rcgen::generate_simple_self_signed(vec!["beckon.test".into()]).unwrap();
    let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    std::fs::write(&cert, made.cert.pem()).unwrap();
    std::fs::write(&key, made.signing_key.serialize_pem()).unwrap();
    let port = free_port();
    let public = format!("https://beckon.test:{port}");
    let mut server = tokio::process::Command::new(env!("CARGO_BIN_EXE_beckon"))
        .arg("--data-dir")
        .arg(&data)
        .args(["serve", "--port", &port.to_string(), "--listen", "0.0.0.0", "--public-url", &public])
        .arg("--tls-cert")
        .arg(&cert)
        .arg("--tls-key")
        .arg(&key)
        .env_remove("BECKON_DATABASE_URL")
        .env_remove("RUST_LOG")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    // A client that trusts the server's certificate and finds `beckon.test` on loopback.
    let trusting = reqwest::Client::builder()
        .no_proxy()
        .tls_built_in_root_certs(false)
        .add_root_certificate(reqwest::Certificate::from_pem(made.cert.pem().as_bytes()).unwrap())
        .resolve("beckon.test", ([127, 0, 0, 1], port).into())
        .build()
        .unwrap();
    let began = std::time::Instant::now();
    let token = loop {
        if let Ok(found) = beckon_gateway::Discovery::read(&data)
            && trusting.get(format!("{public}/v1/health")).bearer_auth(&found.token).send().await.is_ok()
        {
            assert!(found.url.starts_with("https://"), "gateway.json names the scheme it serves: {}", found.url);
            break found.token;
        }
        assert!(server.try_wait().unwrap().is_none(), "beckon serve exited before serving HTTPS");
        assert!(began.elapsed() < std::time::Duration::from_secs(60), "beckon serve did not serve HTTPS");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };

    let asked = trusting
        .post(format!("{public}/v1/questions"))
        .bearer_auth(&token)
        .json(&json!({"agent": "ci", "questions": [{"question": "Ship?", "header": "Ship", "multiSelect": false,
            "options": [{"label": "Yes", "description": "y"}, {"label": "No", "description": "n"}]}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(asked.status(), 201);
    let asked: Value = asked.json().await.unwrap();
    let id = asked["request_id"].as_str().unwrap();
    assert_eq!(asked["answer_url"], format!("{public}/v1/questions/{id}/answer"), "{asked}");

    // Nothing is served in the clear on the port, and a client that does not trust the
    // certificate is not talked into it.
    let plain = reqwest::Client::builder().no_proxy().build().unwrap();
    let cleartext = plain.get(format!("http://127.0.0.1:{port}/v1/health")).bearer_auth(&token).send().await;
    assert!(cleartext.is_err(), "plain HTTP was answered on the TLS port: {cleartext:?}");
    let untrusting =
        reqwest::Client::builder().no_proxy().resolve("beckon.test", ([127, 0, 0, 1], port).into()).build().unwrap();
    assert!(untrusting.get(format!("{public}/v1/health")).send().await.is_err());

    // This machine's own CLI still comes in by the private socket.
    let pending = tokio::process::Command::new(env!("CARGO_BIN_EXE_beckon"))
        .arg("--data-dir")
        .arg(&data)
        .args(["pending", "--json"])
        .env_remove("BECKON_URL")
        .env_remove("BECKON_TOKEN")
        .output()
        .await
        .unwrap();
    let listed = String::from_utf8_lossy(&pending.stdout);
    assert!(pending.status.success() && listed.contains(id), "{listed}{}", String::from_utf8_lossy(&pending.stderr));

    server.start_kill().unwrap();
    let said = server.wait_with_output().await.unwrap();
    let log = String::from_utf8_lossy(&said.stderr);
    assert!(!log.contains("plain HTTP"), "no warning about plain HTTP when serving HTTPS:\n{log}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_public_url_is_in_links_and_its_host_is_let_through() {
    let dir = tempfile::tempdir().unwrap();
    let (data, logs) = (dir.path().join("data"), dir.path().join("logs"));
    std::fs::create_dir_all(&logs).unwrap();
    let server = Server::start_with(&data, &logs, &["--public-url", "https://beckon.example.test/"]).await;
    let endpoint = server.watch().borrow().endpoint.clone().unwrap();
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    let health = |host: &'static str| {
        http.get(format!("{}/v1/health", endpoint.url)).bearer_auth(&endpoint.token).header("host", host).send()
    };
    // As the reverse proxy forwards it, with the public name.
    assert_eq!(health("beckon.example.test").await.unwrap().status(), 200);
    // Any other name is still a web page's rebinding trick.
    assert_eq!(health("evil.example").await.unwrap().status(), 403);
    assert_eq!(health("beckon.example.test:8443").await.unwrap().status(), 403);

    let asked: Value = http
        .post(format!("{}/v1/questions", endpoint.url))
        .bearer_auth(&endpoint.token)
        .json(&json!({"agent": "ci", "questions": [{"question": "Ship?", "header": "Ship", "multiSelect": false,
            "options": [{"label": "Yes", "description": "y"}, {"label": "No", "description": "n"}]}]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = asked["request_id"].as_str().unwrap();
    assert_eq!(asked["answer_url"], format!("https://beckon.example.test/v1/questions/{id}/answer"), "{asked}");
    server.stop().await;
}
