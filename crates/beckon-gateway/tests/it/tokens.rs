//! Ask-only tokens over real loopback HTTP: made, listed and revoked with the person's token
//! only; an ask-only token asks, reads, long-polls and withdraws its own questions, and is
//! refused everything else (403, or 404 for a question it did not ask, the same as for none);
//! a revoked token is refused on its next request; the proof route proves knowing a token by
//! its hint; and the gateway's own client works with an ask-only token.

use std::time::Duration;

use beckon_api::QuestionStatus;
use beckon_gateway::client::Endpoint;
use beckon_gateway::{ClientError, GatewayClient};
use beckon_runtime::api::ErrorKind;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::served;

struct Setup {
    served: served::Served,
}

impl Setup {
    async fn new() -> Setup {
        Setup { served: served::serve(|_| {}).await }
    }

    fn request(&self, method: Method, path: &str, token: &str) -> reqwest::RequestBuilder {
        self.served.http.request(method, format!("{}{path}", self.served.gateway.url)).bearer_auth(token)
    }

    fn person(&self) -> &str {
        &self.served.gateway.token
    }

    /// Makes an ask-only token; its secret.
    async fn token(&self, name: &str) -> String {
        let response = self
            .request(Method::POST, "/v1/tokens", self.person())
            .json(&json!({"name": name, "kind": "ask_only"}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::CREATED);
        let made: Value = response.json().await.unwrap();
        assert_eq!(made["token"]["name"], name);
        assert_eq!(made["token"]["kind"], "ask_only");
        made["secret"].as_str().unwrap().to_owned()
    }

    async fn ask(&self, token: &str) -> String {
        let body = json!({"agent": "claude-code", "session_key": "claude-code:5b0c", "questions": [
            {"question": "Deploy?", "header": "Deploy", "options": [{"label": "Yes"}, {"label": "No"}]}]});
        let response = self.request(Method::POST, "/v1/questions", token).json(&body).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::CREATED);
        let created: Value = response.json().await.unwrap();
        created["request_id"].as_str().unwrap().to_owned()
    }
}

async fn refused(response: reqwest::Response) -> (StatusCode, String) {
    let status = response.status();
    let body: Value = response.json().await.unwrap();
    (status, body["error"]["kind"].as_str().unwrap_or_default().to_owned())
}

#[tokio::test]
async fn an_ask_only_token_asks_and_follows_only_its_own_questions() {
    let s = Setup::new().await;
    let devbox = s.token("devbox").await;
    let mine = s.ask(&devbox).await;
    let theirs = s.ask(s.person()).await;

    let read = s.request(Method::GET, &format!("/v1/questions/{mine}"), &devbox).send().await.unwrap();
    assert_eq!(read.status(), StatusCode::OK);
    let polled = s.request(Method::GET, &format!("/v1/questions/{mine}?wait=0.1"), &devbox).send().await.unwrap();
    let polled: Value = polled.json().await.unwrap();
    assert_eq!(polled["status"], "pending");
    let health = s.request(Method::GET, "/v1/health", &devbox).send().await.unwrap();
    assert_eq!(health.status(), StatusCode::OK);
    let notice = json!({"agent": "claude-code", "message": "waits at its prompt"});
    let posted = s.request(Method::PUT, "/v1/notices/claude-code:5b0c", &devbox).json(&notice).send().await.unwrap();
    assert_eq!(posted.status(), StatusCode::OK);
    let cleared: Value =
        s.request(Method::DELETE, "/v1/notices/claude-code:5b0c", &devbox).send().await.unwrap().json().await.unwrap();
    assert_eq!(cleared["cleared"], true);

    // Another's question reads as no question at all.
    let unknown = "0190f1d2-0000-7000-8000-00000000beef";
    for id in [theirs.as_str(), unknown] {
        let read = s.request(Method::GET, &format!("/v1/questions/{id}"), &devbox).send().await.unwrap();
        assert_eq!(refused(read).await, (StatusCode::NOT_FOUND, "not_found".into()), "{id}");
        let cancel = s
            .request(Method::POST, &format!("/v1/questions/{id}/cancel"), &devbox)
            .json(&json!({"reason": "mine now"}))
            .send()
            .await
            .unwrap();
        assert_eq!(refused(cancel).await, (StatusCode::NOT_FOUND, "not_found".into()), "{id}");
    }
    let theirs_now: Value = s
        .request(Method::GET, &format!("/v1/questions/{theirs}"), s.person())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(theirs_now["status"], "pending", "untouched");

    let forbidden = [
        (Method::POST, format!("/v1/questions/{mine}/answer"), json!({"answer": "Yes"})),
        (Method::POST, format!("/v1/questions/{mine}/decline"), json!({})),
        (Method::GET, "/v1/questions?status=pending".to_owned(), Value::Null),
        (Method::GET, "/v1/events".to_owned(), Value::Null),
        (Method::GET, format!("/v1/sessions/{unknown}"), Value::Null),
        (Method::POST, format!("/v1/sessions/{unknown}/answer"), json!({"answer": "Yes"})),
        (Method::POST, "/v1/agents/hook/trigger".to_owned(), json!({})),
        (Method::GET, "/v1/notices".to_owned(), Value::Null),
        (Method::POST, "/v1/tokens".to_owned(), json!({"name": "mine", "kind": "ask_only"})),
        (Method::GET, "/v1/tokens".to_owned(), Value::Null),
        (Method::DELETE, "/v1/tokens/devbox".to_owned(), Value::Null),
        (Method::POST, "/mcp".to_owned(), json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})),
    ];
    for (method, path, body) in forbidden {
        let mut request = s.request(method.clone(), &path, &devbox);
        if !body.is_null() {
            request = request.json(&body);
        }
        let response = tokio::time::timeout(Duration::from_secs(5), request.send()).await.unwrap().unwrap();
        assert_eq!(refused(response).await, (StatusCode::FORBIDDEN, "forbidden".into()), "{method} {path}");
    }
    let still: Value =
        s.request(Method::GET, &format!("/v1/questions/{mine}"), &devbox).send().await.unwrap().json().await.unwrap();
    assert_eq!(still["status"], "pending", "nothing it was refused changed its question");

    let cancelled = s
        .request(Method::POST, &format!("/v1/questions/{mine}/cancel"), &devbox)
        .json(&json!({"reason": "answered in the terminal"}))
        .send()
        .await
        .unwrap();
    let cancelled: Value = cancelled.json().await.unwrap();
    assert_eq!(cancelled["status"], "cancelled");
}

#[tokio::test]
async fn tokens_are_the_persons_to_make_and_revoking_one_refuses_its_next_request() {
    let s = Setup::new().await;
    let devbox = s.token("devbox").await;
    s.token("ci").await;
    let listed: Value = s.request(Method::GET, "/v1/tokens", s.person()).send().await.unwrap().json().await.unwrap();
    let names: Vec<&str> = listed["tokens"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["ci", "devbox"]);
    assert!(!listed.to_string().contains("bkn_ask_"), "no secret is listed");
    let taken = s
        .request(Method::POST, "/v1/tokens", s.person())
        .json(&json!({"name": "devbox", "kind": "ask_only"}))
        .send()
        .await
        .unwrap();
    assert_eq!(refused(taken).await, (StatusCode::UNPROCESSABLE_ENTITY, "invalid_input".into()));

    assert_eq!(s.request(Method::GET, "/v1/health", &devbox).send().await.unwrap().status(), StatusCode::OK);
    let revoked = s.request(Method::DELETE, "/v1/tokens/devbox", s.person()).send().await.unwrap();
    assert_eq!(revoked.status(), StatusCode::OK);
    let next = s.request(Method::GET, "/v1/health", &devbox).send().await.unwrap();
    assert_eq!(refused(next).await, (StatusCode::UNAUTHORIZED, "unauthorized".into()), "refused at once");
    let again = s.request(Method::DELETE, "/v1/tokens/devbox", s.person()).send().await.unwrap();
    assert_eq!(refused(again).await, (StatusCode::NOT_FOUND, "not_found".into()));

    // Revoked from the runtime (as the window does): refused at once too.
    let ci = s.token("ci-2").await;
    assert_eq!(s.request(Method::GET, "/v1/health", &ci).send().await.unwrap().status(), StatusCode::OK);
    s.served.beckon.tokens().revoke("ci-2").await.unwrap();
    let next = s.request(Method::GET, "/v1/health", &ci).send().await.unwrap();
    assert_eq!(next.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn the_gateways_client_proves_the_server_and_works_with_an_ask_only_token() {
    let s = Setup::new().await;
    let devbox = s.token("devbox").await;
    let endpoint =
        Endpoint { url: s.served.gateway.url.clone(), token: devbox.clone(), pid: None, socket: None, ca_file: None };
    let client = GatewayClient::new(reqwest::Client::new(), endpoint.clone(), "remote-test");
    assert_eq!(client.health().await.unwrap().status, "ok");
    let created = client
        .ask(
            &json!({"agent": "ci", "questions": [{"question": "Go?", "options": [{"label": "Yes"}, {"label": "No"}]}]}),
        )
        .await
        .unwrap();
    let id = created.request_id.to_string();
    assert_eq!(client.question(&id, Duration::ZERO).await.unwrap().status, QuestionStatus::Pending);
    let err = client.pending().await.unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::Forbidden), "{err}");

    // A server that knows another token cannot prove this one: nothing is sent to it.
    let other = served::serve(|_| {}).await;
    let elsewhere = Endpoint { url: other.gateway.url.clone(), ..endpoint.clone() };
    let err = GatewayClient::new(reqwest::Client::new(), elsewhere, "remote-test").health().await.unwrap_err();
    assert!(matches!(&err, ClientError::Api { status: 401, .. }), "{err}");

    s.served.beckon.tokens().revoke("devbox").await.unwrap();
    let fresh = GatewayClient::new(reqwest::Client::new(), endpoint, "remote-test");
    let err = fresh.health().await.unwrap_err();
    assert!(matches!(&err, ClientError::Api { status: 401, .. }), "{err}");
    assert!(err.to_string().contains("revoked"), "{err}");
}

#[tokio::test]
async fn beckon_mcp_asks_and_gets_its_answer_with_an_ask_only_token_and_nothing_else() {
    use beckon_core::QuestionRequest;
    use beckon_gateway::Locator;
    use beckon_gateway::mcp::{Backend, BackendError, McpAsk, Remote};

    let s = Setup::new().await;
    let devbox = s.token("devbox").await;
    let elsewhere = tempfile::tempdir().unwrap();
    let locator = Locator {
        data_dir: elsewhere.path().to_path_buf(),
        url: Some(s.served.gateway.url.clone()),
        token: Some(devbox.clone()),
        ca_file: None,
    };
    let mcp = Remote::new(locator).unwrap();
    let request = QuestionRequest::parse(&json!({"questions": [{"question": "Which port?", "header": "Port",
        "options": [{"label": "7393"}, {"label": "8080"}]}]}))
    .unwrap();
    let asked = mcp.ask(McpAsk { agent: "claude-code".into(), session_key: None, request }).await.unwrap();
    let waiting = mcp.wait(asked, Duration::from_millis(100)).await.unwrap();
    assert!(waiting.outcome.is_none(), "get_answer: still pending");

    let answered = s
        .request(Method::POST, &format!("/v1/questions/{asked}/answer"), s.person())
        .json(&json!({"answer": "7393"}))
        .send()
        .await
        .unwrap();
    assert_eq!(answered.status(), StatusCode::OK);
    let done = mcp.wait(asked, Duration::from_secs(5)).await.unwrap();
    assert!(matches!(done.outcome, Some(beckon_core::Outcome::Answered { .. })), "{:?}", done.outcome);

    let theirs: beckon_core::RequestId = s.ask(s.person()).await.parse().unwrap();
    assert!(matches!(mcp.question(theirs).await, Err(BackendError::NotFound(_))), "get_answer on another's question");
}
