//! The hostile-input corpus (`tests/hostile/http.json` and `texts.json`) against the gateway on
//! a real loopback port: every refusal has its status and a JSON error naming the problem, a
//! refused request writes nothing, accepted hostile text comes back byte-for-byte, and the
//! database file stays whole and consistent throughout.

use beckon_testkit::corpus;

use std::collections::BTreeMap;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

const UNKNOWN: &str = "0190f1d2-0000-7000-8000-00000000beef";
const TABLES: [&str; 5] = ["sessions", "messages", "questions", "events", "outbox"];

use crate::served;

use served::Served as Gateway;

async fn start() -> Gateway {
    served::serve(|config| {
        // The corpus sends hundreds of requests in a burst; the rate limit has its own tests.
        config.writes_per_second = 10_000.0;
        config.write_burst = 10_000.0;
    })
    .await
}

/// A question every case may aim at: one choice question, "Yes" or "No".
fn fixture_question() -> Value {
    json!({"agent": "fixture", "questions": [{"question": "Proceed?", "header": "Go",
        "options": [{"label": "Yes", "description": "Go ahead"}, {"label": "No"}]}]})
}

impl Gateway {
    fn request(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        self.http.request(method, format!("{}{path}", self.gateway.url)).bearer_auth(&self.gateway.token)
    }

    async fn post_reading(&self, path: &str, body: &Value) -> (StatusCode, Value) {
        let response = self.request(Method::POST, path).json(body).send().await.unwrap();
        let status = response.status();
        (status, response.json().await.unwrap())
    }

    /// Asks `body`'s question; (request id, session id).
    async fn ask_ids(&self, body: &Value) -> (String, String) {
        let (status, created) = self.post_reading("/v1/questions", body).await;
        assert_eq!(status, StatusCode::CREATED, "{created}");
        (created["request_id"].as_str().unwrap().to_owned(), created["session_id"].as_str().unwrap().to_owned())
    }

    /// Sends a request over a bare connection, its body chunked or with a Content-Length,
    /// reading the answer while still sending, as a client must when the server refuses a body
    /// part-way; (status, body). For what an HTTP client library refuses to send, and for
    /// refusals it would report as its own failed write instead of the answer.
    async fn send_raw(&self, method: &str, path: &str, body: Option<Vec<u8>>, chunked: bool) -> (StatusCode, String) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let stream = tokio::net::TcpStream::connect(self.gateway.addr).await.unwrap();
        let (mut reader, mut writer) = stream.into_split();
        let body = body.unwrap_or_default();
        let framing =
            if chunked { "Transfer-Encoding: chunked".to_owned() } else { format!("Content-Length: {}", body.len()) };
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {}\r\n\
             Content-Type: application/json\r\n{framing}\r\nConnection: close\r\n\r\n",
            self.gateway.addr.port(),
            self.gateway.token
        );
        let sending = tokio::spawn(async move {
            writer.write_all(head.as_bytes()).await?;
            for chunk in body.chunks(64 * 1024) {
                if chunked {
                    writer.write_all(format!("{:x}\r\n", chunk.len()).as_bytes()).await?;
                }
                writer.write_all(chunk).await?;
                if chunked {
                    writer.write_all(b"\r\n").await?;
                }
            }
            if chunked {
                writer.write_all(b"0\r\n\r\n").await?;
            }
            Ok::<(), std::io::Error>(())
        });
        let mut answer = Vec::new();
        tokio::time::timeout(Duration::from_secs(30), reader.read_to_end(&mut answer)).await.unwrap().unwrap();
        // The server may close before the whole body is sent: the write side's error is expected.
        let _ = sending.await.unwrap();
        let answer = String::from_utf8_lossy(&answer).into_owned();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap_or_else(|| panic!("no HTTP answer: {answer}"));
        let status = head.split(' ').nth(1).and_then(|code| code.parse::<u16>().ok()).unwrap();
        (StatusCode::from_u16(status).unwrap(), body.to_owned())
    }

    fn db(&self) -> rusqlite::Connection {
        rusqlite::Connection::open_with_flags(self.db_path(), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap()
    }

    fn counts(&self) -> BTreeMap<&'static str, i64> {
        let db = self.db();
        TABLES
            .iter()
            .map(|table| {
                (*table, db.query_row(&format!("SELECT count(*) FROM {table}"), [], |row| row.get(0)).unwrap())
            })
            .collect()
    }

    fn status_of(&self, question: &str) -> String {
        self.db().query_row("SELECT status FROM questions WHERE id = ?1", [question], |row| row.get(0)).unwrap()
    }

    /// A stored JSON column of a question.
    fn stored(&self, question: &str, column: &str) -> Value {
        let text: String = self
            .db()
            .query_row(&format!("SELECT {column} FROM questions WHERE id = ?1"), [question], |row| row.get(0))
            .unwrap();
        serde_json::from_str(&text).unwrap()
    }

    /// The file is whole, and no row is half of something: every external session has its
    /// question, every question its timeline entry and its event, every waiting session its
    /// one pending question.
    fn assert_consistent(&self) {
        let db = self.db();
        let integrity: String = db.query_row("PRAGMA integrity_check", [], |row| row.get(0)).unwrap();
        assert_eq!(integrity, "ok");
        let dangling: i64 =
            db.query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |row| row.get(0)).unwrap();
        assert_eq!(dangling, 0, "rows point at rows that do not exist");
        let checks = [
            (
                "an external session without a question",
                "SELECT count(*) FROM sessions s WHERE s.origin = 'external'
                 AND NOT EXISTS (SELECT 1 FROM questions q WHERE q.session_id = s.id)",
            ),
            (
                "a question missing from its session's timeline",
                "SELECT count(*) FROM questions q WHERE NOT EXISTS (SELECT 1 FROM messages m
                 WHERE m.session_id = q.session_id AND m.kind = 'question'
                 AND json_extract(m.body, '$.request_id') = q.id)",
            ),
            (
                "a question without its question_pending event",
                "SELECT count(*) FROM questions q WHERE NOT EXISTS (SELECT 1 FROM events e
                 WHERE e.kind = 'question_pending' AND e.request_id = q.id)",
            ),
            (
                "a session waiting with no pending question",
                "SELECT count(*) FROM sessions s WHERE s.status = 'waiting_for_input'
                 AND NOT EXISTS (SELECT 1 FROM questions q WHERE q.session_id = s.id AND q.status = 'pending')",
            ),
            (
                "a pending question in a session that is not waiting",
                "SELECT count(*) FROM questions q JOIN sessions s ON s.id = q.session_id
                 WHERE q.status = 'pending' AND s.status <> 'waiting_for_input'",
            ),
            (
                "a resolved question without its outcome",
                "SELECT count(*) FROM questions WHERE status <> 'pending' AND (outcome IS NULL OR resolved_at IS NULL)",
            ),
        ];
        for (what, sql) in checks {
            let found: i64 = db.query_row(sql, [], |row| row.get(0)).unwrap();
            assert_eq!(found, 0, "{found} × {what}");
        }
    }
}

/// At most the first 500 characters of `text`, for failure messages.
fn short(text: &str) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(500).collect();
    if chars.next().is_some() { format!("{head}…") } else { head }
}

/// Checks a response against a case's `expect`.
fn check(case: &Value, status: StatusCode, text: &str) {
    let name = corpus::name(case);
    let expect = &case["expect"];
    let shown = short(text);
    assert_eq!(u64::from(status.as_u16()), expect["status"].as_u64().unwrap(), "{name}: {shown}");
    if let Some(kind) = expect["kind"].as_str() {
        let body: Value = serde_json::from_str(text).unwrap_or_else(|_| panic!("{name}: not a JSON error: {shown}"));
        let error = &body["error"];
        assert_eq!(error["kind"], kind, "{name}: {body}");
        assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()), "{name}: {body}");
        if let Some(field) = expect.get("field") {
            assert_eq!(&error["field"], field, "{name}: {body}");
        }
    }
    if let Some(code) = expect.get("jsonrpc_code") {
        let body: Value =
            serde_json::from_str(text).unwrap_or_else(|_| panic!("{name}: not a JSON-RPC error: {shown}"));
        assert_eq!(body["jsonrpc"], "2.0", "{name}: {body}");
        assert_eq!(&body["error"]["code"], code, "{name}: {body}");
    }
    if let Some(part) = expect["message_contains"].as_str() {
        assert!(text.contains(part), "{name}: {part:?} not in {shown}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_hostile_request_gets_a_clear_error_and_writes_nothing() {
    let g = start().await;
    let cases = corpus::cases("http.json");
    for case in &cases {
        let name = corpus::name(case);
        let (question, session) = g.ask_ids(&fixture_question()).await;
        let before = g.counts();
        let path = corpus::text(&case["path"])
            .replace("{question}", &question)
            .replace("{session}", &session)
            .replace("{unknown}", UNKNOWN);
        let body = match (case.get("body"), case.get("raw")) {
            (Some(body), None) => Some(serde_json::to_vec(&corpus::expand(body)).unwrap()),
            (None, Some(raw)) => Some(corpus::bytes(raw)),
            (None, None) => None,
            (Some(_), Some(_)) => panic!("{name}: body or raw, not both"),
        };
        let method = case["method"].as_str().unwrap();
        let (status, text) = if case["transport"] == "raw" {
            g.send_raw(method, &path, body, true).await
        } else if case["transport"] == "raw_with_length" {
            g.send_raw(method, &path, body, false).await
        } else {
            let mut request = g.request(Method::from_bytes(method.as_bytes()).unwrap(), &path);
            if let Some(body) = body {
                request = request.header("content-type", "application/json").body(body);
            }
            if case["mcp"] == true {
                request = request.header("accept", "application/json, text/event-stream");
            }
            let response = tokio::time::timeout(Duration::from_secs(30), request.send())
                .await
                .unwrap_or_else(|_| panic!("{name}: no answer"))
                .unwrap_or_else(|err| panic!("{name}: the connection failed (a panic in a handler?): {err}"));
            (response.status(), response.text().await.unwrap())
        };
        check(case, status, &text);
        if status.as_u16() >= 400 {
            assert_eq!(g.counts(), before, "{name}: a refused request changed the database");
            assert_eq!(g.status_of(&question), "pending", "{name}");
        }
        g.assert_consistent();
    }
    let health = g.request(Method::GET, "/v1/health").send().await.unwrap();
    assert_eq!(health.status(), StatusCode::OK, "the gateway still serves after {} hostile requests", cases.len());
}

/// Where an accepted text can go in a question: (question, description, label, header).
fn question_with(text: &str) -> Value {
    let fits_label = corpus::single_line(text) && text.len() <= 200;
    let fits_header = corpus::single_line(text) && text.chars().count() <= 12;
    let mut option = json!({"label": if fits_label { text } else { "Yes" }});
    if text.len() <= 1024 {
        option["description"] = json!(text);
    }
    let mut item = json!({"question": text, "options": [option, {"label": "Other option"}], "multiSelect": false});
    if fits_header {
        item["header"] = json!(text);
    }
    json!({"agent": "hostile-texts", "questions": [item]})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accepted_hostile_text_is_stored_and_returned_byte_for_byte() {
    let g = start().await;
    let texts = corpus::texts("accepted");
    for (name, text) in &texts {
        let asked = question_with(text);
        let (question, _) = g.ask_ids(&asked).await;
        let stored = g.stored(&question, "request");
        assert_eq!(stored["questions"][0], asked["questions"][0], "{name}: stored as given");
        let response = g.request(Method::GET, &format!("/v1/questions/{question}")).send().await.unwrap();
        let view: Value = response.json().await.unwrap();
        assert_eq!(view["questions"]["questions"][0], asked["questions"][0], "{name}: read back as given");

        let answer = json!({"answers": [{"other": text, "comment": text}]});
        let (status, answered) = g.post_reading(&format!("/v1/questions/{question}/answer"), &answer).await;
        assert_eq!(status, StatusCode::OK, "{name}: {answered}");
        assert_eq!(answered["result"]["answers"][text.as_str()], json!(text), "{name}: {answered}");
        assert_eq!(answered["result"]["annotations"][text.as_str()]["notes"], json!(text), "{name}: {answered}");
        assert_eq!(g.stored(&question, "outcome")["answers"][0], answer["answers"][0], "{name}");

        let (declined, _) = g.ask_ids(&fixture_question()).await;
        let (status, body) =
            g.post_reading(&format!("/v1/questions/{declined}/decline"), &json!({"reason": text})).await;
        if text.len() <= 1024 {
            assert_eq!(status, StatusCode::OK, "{name}: {body}");
            assert_eq!(g.stored(&declined, "outcome")["reason"], json!(text), "{name}");
        } else {
            assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{name}: {body}");
        }
    }
    g.assert_consistent();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_characters_are_refused_in_every_text_field() {
    let g = start().await;
    let refused = corpus::load("texts.json")["refused"].as_array().unwrap().clone();
    for entry in &refused {
        let (name, text) = (corpus::name(entry), corpus::text(&entry["text"]));
        let code_point = entry["code_point"].as_str().unwrap();
        let (question, session) = g.ask_ids(&fixture_question()).await;
        let before = g.counts();
        let mut attempts: Vec<(&str, String, Value)> = Vec::new();
        for (field, path) in [
            ("questions[0].question", "/questions/0/question"),
            ("questions[0].header", "/questions/0/header"),
            ("questions[0].options[0].label", "/questions/0/options/0/label"),
            ("questions[0].options[0].description", "/questions/0/options/0/description"),
        ] {
            let mut body = fixture_question();
            *body.pointer_mut(path).unwrap_or_else(|| panic!("{path} is not in the fixture")) = json!(text);
            attempts.push((field, "/v1/questions".to_owned(), body));
        }
        let answer = format!("/v1/questions/{question}/answer");
        attempts.push(("answers[0].other", answer.clone(), json!({"answers": [{"other": text}]})));
        attempts.push(("answers[0].comment", answer, json!({"answers": [{"selected": ["Yes"], "comment": text}]})));
        attempts.push(("reason", format!("/v1/questions/{question}/decline"), json!({"reason": text})));
        attempts.push(("reason", format!("/v1/sessions/{session}/cancel"), json!({"reason": text})));
        for (field, path, body) in attempts {
            let (status, error) = g.post_reading(&path, &body).await;
            assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{name} in {field}: {error}");
            assert_eq!(error["error"]["field"], field, "{name}: {error}");
            let message = error["error"]["message"].as_str().unwrap();
            assert!(message.contains(code_point), "{name} in {field}: {message}");
        }
        assert_eq!(g.counts(), before, "{name}: a refused text changed the database");
        assert_eq!(g.status_of(&question), "pending", "{name}");
    }
    g.assert_consistent();
}
