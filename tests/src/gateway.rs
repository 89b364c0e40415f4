//! The running app's gateway, reached as an external agent would: found through `gateway.json`
//! in the data folder, spoken to over plain HTTP/1.1 on loopback.

use std::path::Path;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::{Failure, Home, eventually};

/// Sends one request with an optional JSON body to the app `home` runs; the status line and
/// the parsed body.
async fn request(home: &Home, method: &str, path: &str, body: Option<&Value>) -> Result<(String, Value), Failure> {
    request_in(&home.data_dir(), method, path, body).await
}

/// Sends one request with an optional JSON body to the app whose data folder is `data_dir`,
/// waiting for its `gateway.json` first; the status line and the parsed body.
pub async fn request_in(
    data_dir: &Path,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> Result<(String, Value), Failure> {
    let found = gateway_file(data_dir).await?;
    let token = found["token"].as_str().ok_or("gateway.json has no token")?;
    request_as(data_dir, token, method, path, body).await
}

/// The app's `gateway.json`, once it is written.
async fn gateway_file(data_dir: &Path) -> Result<Value, Failure> {
    let file = data_dir.join("gateway.json");
    eventually("gateway.json", || std::fs::read_to_string(&file).ok().and_then(|t| serde_json::from_str(&t).ok())).await
}

/// Sends one request with an optional JSON body to the app whose data folder is `data_dir`,
/// carrying `token` as its bearer token (another than the person's, an agent's token); the
/// status line and the parsed body.
pub async fn request_as(
    data_dir: &Path,
    token: &str,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> Result<(String, Value), Failure> {
    let found = gateway_file(data_dir).await?;
    let address = found["url"].as_str().and_then(|url| url.strip_prefix("http://")).ok_or("gateway.json has no url")?;
    let body = body.map(Value::to_string).unwrap_or_default();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(address).await?;
    stream.write_all(request.as_bytes()).await?;
    let mut response = String::new();
    stream.read_to_string(&mut response).await?;
    let (head, body) = response.split_once("\r\n\r\n").ok_or("no HTTP response")?;
    let status = head.lines().next().unwrap_or_default().to_owned();
    Ok((status, serde_json::from_str(body).unwrap_or(Value::Null)))
}

/// `POST /v1/questions` with `body`; the created question's id.
pub async fn create(home: &Home, body: &Value) -> Result<String, Failure> {
    let (status, answer) = request(home, "POST", "/v1/questions", Some(body)).await?;
    if !status.starts_with("HTTP/1.1 201") {
        return Err(format!("POST /v1/questions: {status}\n{answer}").into());
    }
    answer["request_id"].as_str().map(str::to_owned).ok_or_else(|| "no request_id in the answer".into())
}

/// Puts a question from the external agent `agent` to the person (`POST /v1/questions`) and
/// returns its id.
pub async fn ask(home: &Home, agent: &str, question: &str) -> Result<String, Failure> {
    let body = json!({"agent": agent, "questions": [{"question": question, "header": "Deploy",
        "options": [{"label": "Yes"}, {"label": "No"}]}]});
    create(home, &body).await
}

/// `POST /v1/questions/{id}/answer` with `body`: the status line and the reply.
pub async fn answer(home: &Home, id: &str, body: &Value) -> Result<(String, Value), Failure> {
    request(home, "POST", &format!("/v1/questions/{id}/answer"), Some(body)).await
}

/// `POST /v1/questions/{id}/cancel` with `reason`: the asker withdraws its question.
pub async fn cancel(home: &Home, id: &str, reason: &str) -> Result<Value, Failure> {
    let (status, view) =
        request(home, "POST", &format!("/v1/questions/{id}/cancel"), Some(&json!({"reason": reason}))).await?;
    if !status.starts_with("HTTP/1.1 200") {
        return Err(format!("POST /v1/questions/{id}/cancel: {status}\n{view}").into());
    }
    Ok(view)
}

/// `GET /v1/questions/{id}`.
pub async fn question(home: &Home, id: &str) -> Result<Value, Failure> {
    let (status, view) = request(home, "GET", &format!("/v1/questions/{id}"), None).await?;
    if !status.starts_with("HTTP/1.1 200") {
        return Err(format!("GET /v1/questions/{id}: {status}\n{view}").into());
    }
    Ok(view)
}

/// `PUT /v1/notices/{key}` with `body`, or `DELETE /v1/notices/{key}` when `body` is `None`:
/// an agent waiting at its own prompt, then going on.
pub async fn notice(home: &Home, key: &str, body: Option<&Value>) -> Result<Value, Failure> {
    let method = if body.is_some() { "PUT" } else { "DELETE" };
    let (status, reply) = request(home, method, &format!("/v1/notices/{key}"), body).await?;
    if !status.starts_with("HTTP/1.1 200") {
        return Err(format!("{method} /v1/notices/{key}: {status}\n{reply}").into());
    }
    Ok(reply)
}
