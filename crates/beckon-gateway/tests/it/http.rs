//! Every endpoint and every error path over real loopback HTTP.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use beckon_gateway::{Discovery, GatewayConfig, GatewayError, ROUTES};
use futures_util::StreamExt;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::served;

use served::Served as Setup;

async fn setup_with(edit: impl FnOnce(&mut GatewayConfig)) -> Setup {
    served::serve(edit).await
}

async fn setup() -> Setup {
    setup_with(|_| {}).await
}

impl Setup {
    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.gateway.url)
    }

    fn get(&self, path: &str) -> reqwest::RequestBuilder {
        self.http.get(self.url(path)).bearer_auth(&self.gateway.token)
    }

    fn post(&self, path: &str, body: Value) -> reqwest::RequestBuilder {
        self.http.post(self.url(path)).bearer_auth(&self.gateway.token).json(&body)
    }

    async fn ask(&self, body: Value) -> Value {
        let response = self.post("/v1/questions", body).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::CREATED);
        response.json().await.unwrap()
    }
}

fn deploy() -> Value {
    json!({"agent": "ci-bot", "questions": [{"question": "Deploy to prod?", "header": "Deploy", "multiSelect": false,
        "options": [{"label": "Yes", "description": "Ship it"}, {"label": "No", "description": "Hold"}]}]})
}

async fn error(response: reqwest::Response, status: StatusCode) -> Value {
    assert_eq!(response.status(), status);
    let body: Value = response.json().await.unwrap();
    assert!(body["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{body}");
    body["error"].clone()
}

#[tokio::test]
async fn every_request_needs_the_token() {
    let s = setup().await;
    let response = s.http.get(s.url("/v1/health")).send().await.unwrap();
    assert_eq!(response.headers()["www-authenticate"], "Bearer");
    assert_eq!(error(response, StatusCode::UNAUTHORIZED).await["kind"], "unauthorized");
    let wrong = s.http.get(s.url("/v1/health")).bearer_auth("nope").send().await.unwrap();
    error(wrong, StatusCode::UNAUTHORIZED).await;
    let health: Value = s.get("/v1/health").send().await.unwrap().json().await.unwrap();
    assert_eq!(health["status"], "ok");
    assert_eq!(health["pending"], 0);
}

#[tokio::test]
async fn the_probes_need_no_token_and_tell_nothing_else() {
    let s = setup().await;
    for (path, said) in [("/livez", "live\n"), ("/readyz", "ready\n")] {
        // A load balancer checks a replica by its address, with any Host or none.
        for host in ["10.0.0.5:7401", "backend"] {
            let response = s.http.get(s.url(path)).header("host", host).send().await.unwrap();
            assert_eq!(response.status(), StatusCode::OK, "{path} with Host {host}");
            assert_eq!(response.text().await.unwrap(), said);
        }
    }
    // Nothing else is open: a similar path still needs the token.
    let near = s.http.get(s.url("/readyz/more")).send().await.unwrap();
    assert_eq!(near.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn the_proof_route_alone_needs_no_token_and_proves_the_token_without_showing_it() {
    let s = setup().await;
    let challenge = beckon_gateway::proof::challenge();
    let response = s.http.get(s.url("/v1/proof")).query(&[("challenge", &challenge)]).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let text = response.text().await.unwrap();
    assert!(!text.contains(&s.gateway.token), "{text}");
    let proof: Value = serde_json::from_str(&text).unwrap();
    assert!(beckon_gateway::proof::verify(&s.gateway.token, &challenge, proof["proof"].as_str().unwrap()));
    let bad = s.http.get(s.url("/v1/proof")).query(&[("challenge", "short")]).send().await.unwrap();
    assert_eq!(error(bad, StatusCode::UNPROCESSABLE_ENTITY).await["field"], "challenge");
    let page =
        s.http.get(s.url("/v1/proof")).query(&[("challenge", &challenge)]).header("origin", "https://evil.example");
    assert_eq!(page.send().await.unwrap().status(), StatusCode::FORBIDDEN, "web pages are still refused");
}

#[tokio::test]
async fn foreign_hosts_and_web_pages_are_refused() {
    let s = setup().await;
    let rebinding = s.get("/v1/health").header("host", "evil.example:7393").send().await.unwrap();
    assert_eq!(error(rebinding, StatusCode::FORBIDDEN).await["kind"], "forbidden");
    let page = s.get("/v1/health").header("origin", "https://evil.example").send().await.unwrap();
    error(page, StatusCode::FORBIDDEN).await;
    let fetch = s.get("/v1/health").header("sec-fetch-site", "cross-site").send().await.unwrap();
    error(fetch, StatusCode::FORBIDDEN).await;
    let local =
        s.get("/v1/health").header("host", format!("localhost:{}", s.gateway.addr.port())).send().await.unwrap();
    assert_eq!(local.status(), StatusCode::OK);
}

#[tokio::test]
async fn bad_bodies_get_400_413_and_422() {
    let s = setup().await;
    let malformed =
        s.http.post(s.url("/v1/questions")).bearer_auth(&s.gateway.token).body("{not json").send().await.unwrap();
    assert!(error(malformed, StatusCode::BAD_REQUEST).await["message"].as_str().unwrap().contains("not valid JSON"));
    let huge = json!({"agent": "x", "blob": "x".repeat(300 * 1024)});
    error(s.post("/v1/questions", huge).send().await.unwrap(), StatusCode::PAYLOAD_TOO_LARGE).await;
    let invalid =
        json!({"agent": "ci-bot", "questions": [{"question": "Q?", "options": [{"label": "A"}]}], "colour": "red"});
    let body = error(s.post("/v1/questions", invalid).send().await.unwrap(), StatusCode::UNPROCESSABLE_ENTITY).await;
    let paths: Vec<&str> = body["problems"].as_array().unwrap().iter().map(|p| p["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["colour", "questions[0].options"]);
    assert_eq!(body["field"], "colour");
    let missing =
        error(s.post("/v1/questions", json!({})).send().await.unwrap(), StatusCode::UNPROCESSABLE_ENTITY).await;
    assert_eq!(missing["problems"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn ask_read_answer_and_repeat() {
    let s = setup().await;
    let created = s.ask(deploy()).await;
    let id = created["request_id"].as_str().unwrap().to_owned();
    assert_eq!(created["status"], "pending");
    assert_eq!(created["deep_link"], format!("beckon://question/{id}"));
    let view: Value = s.get(&format!("/v1/questions/{id}")).send().await.unwrap().json().await.unwrap();
    assert_eq!(view["status"], "pending");
    assert_eq!(view["questions"]["questions"][0]["question"], "Deploy to prod?");
    let listed: Value = s.get("/v1/questions?status=pending").send().await.unwrap().json().await.unwrap();
    assert_eq!(listed["questions"][0]["request_id"], id);

    let bad = s
        .post(&format!("/v1/questions/{id}/answer"), json!({"answers": [{"selected": ["Maybe"]}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(error(bad, StatusCode::UNPROCESSABLE_ENTITY).await["field"], "answers[0].selected[0]");
    let answered: Value = s
        .post(&format!("/v1/questions/{id}/answer"), json!({"answer": "Yes"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(answered["status"], "answered");
    assert_eq!(answered["answered_via"], "http");
    assert_eq!(answered["repeat"], false);
    assert_eq!(answered["result"]["outcome"], "answered");
    assert_eq!(answered["result"]["answers"], json!({"Deploy to prod?": "Yes"}));
    let again = s.post(&format!("/v1/questions/{id}/answer"), json!({"answers": ["Yes"]})).send().await.unwrap();
    assert_eq!(again.status(), StatusCode::OK);
    assert_eq!(again.json::<Value>().await.unwrap()["repeat"], true);
    let conflict = s.post(&format!("/v1/questions/{id}/answer"), json!({"answer": "No"})).send().await.unwrap();
    let body = error(conflict, StatusCode::CONFLICT).await;
    assert_eq!(body["kind"], "already_resolved");
    assert_eq!(body["winner"]["outcome"]["answers"][0]["selected"][0], "Yes");
    let declined = s.post(&format!("/v1/questions/{id}/decline"), json!({})).send().await.unwrap();
    error(declined, StatusCode::CONFLICT).await;
}

#[tokio::test]
async fn answers_keyed_by_question_text_answer_with_previews_and_notes() {
    let s = setup().await;
    let asked = json!({"agent": "planner", "questions": [
        {"question": "Which layout?", "header": "Layout", "multiSelect": false, "options": [
            {"label": "Tabs", "description": "One per area", "preview": "[A] [B]"},
            {"label": "One page", "description": "All in one", "preview": "A\nB"}]},
        {"question": "Which areas?", "header": "Areas", "multiSelect": true, "options": [
            {"label": "Keys", "description": "k"}, {"label": "Data", "description": "d"}]}
    ]});
    let created = s.ask(asked.clone()).await;
    let id = created["request_id"].as_str().unwrap().to_owned();
    let missing = s
        .post(&format!("/v1/questions/{id}/answer"), json!({"answers": {"Which layout?": "Tabs"}}))
        .send()
        .await
        .unwrap();
    let body = error(missing, StatusCode::UNPROCESSABLE_ENTITY).await;
    assert_eq!(body["field"], "answers.\"Which areas?\"", "{body}");
    let answers = json!({"answers": {
        "Which areas?": "Keys, Data",
        "Which layout?": {"selected": ["One page"], "comment": "fewer clicks"}
    }});
    let answered: Value =
        s.post(&format!("/v1/questions/{id}/answer"), answers).send().await.unwrap().json().await.unwrap();
    assert_eq!(answered["status"], "answered", "{answered}");
    let result = &answered["result"];
    assert_eq!(result["questions"], asked["questions"], "the questions are echoed, previews and all");
    assert_eq!(result["answers"], json!({"Which layout?": "One page", "Which areas?": "Keys, Data"}));
    assert_eq!(result["annotations"], json!({"Which layout?": {"notes": "fewer clicks", "preview": "A\nB"}}));
}

#[tokio::test]
async fn unknown_ids_are_404() {
    let s = setup().await;
    let unknown = "0190f1d2-0000-7000-8000-00000000beef";
    error(s.get(&format!("/v1/questions/{unknown}")).send().await.unwrap(), StatusCode::NOT_FOUND).await;
    error(s.get("/v1/questions/not-a-uuid").send().await.unwrap(), StatusCode::NOT_FOUND).await;
    error(
        s.post(&format!("/v1/questions/{unknown}/answer"), json!({"answer": "x"})).send().await.unwrap(),
        StatusCode::NOT_FOUND,
    )
    .await;
    error(s.get(&format!("/v1/sessions/{unknown}")).send().await.unwrap(), StatusCode::NOT_FOUND).await;
    error(s.get("/v1/nowhere").send().await.unwrap(), StatusCode::NOT_FOUND).await;
    error(s.post("/v1/agents/nobody/trigger", json!({})).send().await.unwrap(), StatusCode::NOT_FOUND).await;
}

#[tokio::test]
async fn a_long_poll_wakes_when_another_route_answers() {
    let s = setup().await;
    let created = s.ask(deploy()).await;
    let (id, session) =
        (created["request_id"].as_str().unwrap().to_owned(), created["session_id"].as_str().unwrap().to_owned());
    let poll = s.get(&format!("/v1/questions/{id}?wait=30")).send();
    let answer = async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        s.post(&format!("/v1/sessions/{session}/answer"), json!({"question_id": "latest", "answer": "No"}))
            .send()
            .await
            .unwrap()
    };
    let started = std::time::Instant::now();
    let (polled, answered) = tokio::join!(poll, answer);
    assert_eq!(answered.status(), StatusCode::OK);
    let polled: Value = polled.unwrap().json().await.unwrap();
    assert_eq!(polled["status"], "answered");
    assert!(started.elapsed() < Duration::from_secs(10), "woke on the answer, not the timeout");
    let session_view: Value = s.get(&format!("/v1/sessions/{session}")).send().await.unwrap().json().await.unwrap();
    assert_eq!(session_view["status"], "completed");
    assert_eq!(session_view["questions_asked"], 1);
    assert_eq!(session_view["pending_question"], Value::Null);
    let bad_wait = s.get(&format!("/v1/questions/{id}?wait=-1")).send().await.unwrap();
    error(bad_wait, StatusCode::UNPROCESSABLE_ENTITY).await;
}

#[tokio::test]
async fn sessions_can_be_cancelled_and_webhook_agents_triggered() {
    let s = setup().await;
    let created = s.ask(json!({"agent": "ci-bot", "session_key": "run-7", "questions": deploy()["questions"]})).await;
    let session = created["session_id"].as_str().unwrap();
    let cancelled: Value = s
        .post(&format!("/v1/sessions/{session}/cancel"), json!({"reason": "aborted"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(cancelled["status"], "cancelled");
    let triggered = s.post("/v1/agents/hook/trigger", json!({"event": "PUSH"})).send().await.unwrap();
    assert_eq!(triggered.status(), StatusCode::ACCEPTED);
    let triggered: Value = triggered.json().await.unwrap();
    let session = triggered["session_id"].as_str().unwrap().to_owned();
    let mut view = Value::Null;
    for _ in 0..100 {
        view = s.get(&format!("/v1/sessions/{session}")).send().await.unwrap().json().await.unwrap();
        if view["status"] == "completed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(view["status"], "completed");
    assert!(view["result"].as_str().unwrap().starts_with("Handled a webhook triggered this session"), "{view}");
}

#[tokio::test]
async fn a_webhook_delivered_again_with_its_idempotency_key_starts_one_session() {
    let s = setup().await;
    let deliver = |key: &'static str| {
        s.post("/v1/agents/hook/trigger", json!({"delivery": key})).header("idempotency-key", key).send()
    };
    let first: Value = deliver("gh-1").await.unwrap().json().await.unwrap();
    assert_eq!(first["repeat"], false, "{first}");
    let again = deliver("gh-1").await.unwrap();
    assert_eq!(again.status(), StatusCode::ACCEPTED);
    let again: Value = again.json().await.unwrap();
    assert_eq!(again["session_id"], first["session_id"]);
    assert_eq!(again["repeat"], true);
    let other: Value = deliver("gh-2").await.unwrap().json().await.unwrap();
    assert_ne!(other["session_id"], first["session_id"]);
    assert_eq!(other["repeat"], false);
    let unkeyed: Value = s.post("/v1/agents/hook/trigger", json!({})).send().await.unwrap().json().await.unwrap();
    assert_eq!(unkeyed["repeat"], false);

    let bad = deliver("no spaces allowed").await.unwrap();
    let body = error(bad, StatusCode::UNPROCESSABLE_ENTITY).await;
    assert_eq!(body["problems"][0]["path"], "idempotency_key", "{body}");
    // An external agent cannot reach a webhook's session through the same key.
    let hijack = s
        .post(
            "/v1/questions",
            json!({"agent": "hook", "session_key": "webhook:gh-1", "questions": deploy()["questions"]}),
        )
        .send()
        .await
        .unwrap();
    let body = error(hijack, StatusCode::UNPROCESSABLE_ENTITY).await;
    assert_eq!(body["problems"][0]["path"], "session_key", "{body}");
}

#[tokio::test]
async fn events_stream_as_sse_and_resume_from_a_seq() {
    let s = setup().await;
    s.ask(deploy()).await;
    let response = s.get("/v1/events?after=0").send().await.unwrap();
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut stream = response.bytes_stream();
    let mut text = String::new();
    while !text.contains("event: question_pending") {
        let chunk = tokio::time::timeout(Duration::from_secs(10), stream.next()).await.unwrap().unwrap().unwrap();
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(text.contains("id: 1\n"), "{text}");
    let last = s.beckon.events().last_seq().await.unwrap();
    s.ask(deploy()).await;
    let resumed = s.get("/v1/events").header("last-event-id", last.to_string()).send().await.unwrap();
    let mut stream = resumed.bytes_stream();
    let chunk = tokio::time::timeout(Duration::from_secs(10), stream.next()).await.unwrap().unwrap().unwrap();
    let first = String::from_utf8_lossy(&chunk).into_owned();
    assert!(first.contains(&format!("id: {}\n", last + 1)), "resumes right after the last seen event: {first}");
}

#[tokio::test]
async fn writes_are_rate_limited_per_connection() {
    let s = setup_with(|config| {
        config.writes_per_second = 1.0;
        config.write_burst = 2.0;
    })
    .await;
    for _ in 0..2 {
        assert_eq!(
            s.post("/v1/questions", deploy()).header("x-beckon-client", "loop").send().await.unwrap().status(),
            StatusCode::CREATED
        );
    }
    let limited = s.post("/v1/questions", deploy()).header("x-beckon-client", "loop").send().await.unwrap();
    assert!(limited.headers()["retry-after"].to_str().unwrap().parse::<u64>().unwrap() >= 1);
    assert_eq!(error(limited, StatusCode::TOO_MANY_REQUESTS).await["kind"], "rate_limited");
    let other = reqwest::Client::new()
        .post(s.url("/v1/questions"))
        .bearer_auth(&s.gateway.token)
        .json(&deploy())
        .send()
        .await
        .unwrap();
    assert_eq!(other.status(), StatusCode::CREATED, "other connections are not held back");
    assert_eq!(
        s.get("/v1/health").header("x-beckon-client", "loop").send().await.unwrap().status(),
        StatusCode::OK,
        "reads are not limited"
    );
}

#[tokio::test]
async fn the_openapi_document_describes_exactly_the_routes() {
    let s = setup().await;
    let doc: Value = s.get("/v1/openapi.json").send().await.unwrap().json().await.unwrap();
    let mut documented: Vec<(String, String)> = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            documented.push((method.clone(), path.clone()));
        }
    }
    let mut routes: Vec<(String, String)> = ROUTES.iter().map(|(m, p)| ((*m).to_owned(), (*p).to_owned())).collect();
    documented.sort();
    routes.sort();
    assert_eq!(documented, routes);
    // And every route is served (not the fallback's "no such route").
    let id = "0190f1d2-0000-7000-8000-00000000beef";
    for (method, path) in ROUTES {
        let path = path.replace("{id}", id).replace("{name}", "hook");
        let request = if *method == "post" { s.post(&path, json!({})) } else { s.get(&path) };
        let response = tokio::time::timeout(Duration::from_secs(5), request.send()).await.unwrap().unwrap();
        if response.status() == StatusCode::NOT_FOUND {
            let body: Value = response.json().await.unwrap();
            assert_ne!(body["error"]["message"], "no such route; see /v1/openapi.json", "{method} {path}");
        }
    }
}

#[tokio::test]
async fn gateway_json_is_private_and_a_taken_port_is_a_clear_error() {
    let s = setup().await;
    let found = Discovery::read(s.beckon.configuration().data_dir()).unwrap();
    assert_eq!(found.url, s.gateway.url);
    assert_eq!(found.token, s.gateway.token);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode =
            std::fs::metadata(Discovery::path(s.beckon.configuration().data_dir())).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let mut config = GatewayConfig::new(tempfile::tempdir().unwrap().path());
    config.port = s.gateway.addr.port();
    let err = beckon_gateway::start(s.beckon.clone(), config).await.unwrap_err();
    assert!(matches!(err, GatewayError::Bind { .. }), "{err}");
    assert!(err.to_string().contains("is another program using it?"), "{err}");
}

#[derive(Clone, Default)]
struct Received(Arc<Mutex<Vec<(String, String, Value)>>>);

#[tokio::test]
async fn external_callbacks_are_signed_and_retried_after_two_failures() {
    let s = setup().await;
    let received = Received::default();
    let app = axum::Router::new()
        .route(
            "/hook",
            axum::routing::post(
                |axum::extract::State(r): axum::extract::State<Received>,
                 headers: axum::http::HeaderMap,
                 body: bytes::Bytes| async move {
                    let mut calls = r.0.lock().unwrap();
                    let signature = headers["beckon-signature"].to_str().unwrap().to_owned();
                    calls.push((
                        signature,
                        String::from_utf8_lossy(&body).into_owned(),
                        serde_json::from_slice(&body).unwrap(),
                    ));
                    if calls.len() <= 2 {
                        axum::http::StatusCode::INTERNAL_SERVER_ERROR
                    } else {
                        axum::http::StatusCode::OK
                    }
                },
            ),
        )
        .with_state(received.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let hook = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    let mut body = deploy();
    body["callback_url"] = json!(hook);
    let created = s.ask(body).await;
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while received.0.lock().unwrap().len() < 3 {
        assert!(std::time::Instant::now() < deadline, "callbacks did not arrive");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    for (signature, raw, value) in received.0.lock().unwrap().iter() {
        let t: i64 = signature.trim_start_matches("t=").split(',').next().unwrap().parse().unwrap();
        assert_eq!(
            signature,
            &beckon_runtime::callbacks::signature(&s.beckon.configuration().callback_secret(), t, raw.as_bytes())
        );
        assert_eq!(value["request_id"], created["request_id"]);
        assert_eq!(
            value["answer_url"],
            format!("{}/v1/questions/{}/answer", s.gateway.url, created["request_id"].as_str().unwrap())
        );
    }
}

#[tokio::test]
async fn a_question_reads_as_input_and_old_clients_still_find_it_under_questions() {
    let s = setup().await;
    let id = s.ask(deploy()).await["request_id"].as_str().unwrap().to_owned();
    let path = format!("/v1/questions/{id}");
    let items = &deploy()["questions"];

    let old: Value = s.get(&path).send().await.unwrap().json().await.unwrap();
    assert_eq!(&old["input"]["questions"], items, "the input as the agent gave it: {old}");
    assert_eq!(old["questions"], old["input"], "a client that names no version finds it where it always was");

    let named = s.get(&path).header("Beckon-Api-Version", "2").send().await.unwrap().json::<Value>().await.unwrap();
    assert_eq!(&named["input"]["questions"], items);
    assert!(named.get("questions").is_none(), "version 2 has one name for it: {named}");
    let listed = s.get("/v1/questions?status=pending").header("Beckon-Api-Version", "2").send().await.unwrap();
    let listed: Value = listed.json().await.unwrap();
    assert!(listed["questions"][0].get("questions").is_none() && listed["questions"][0]["input"].is_object());
    let answered = s
        .post(&format!("{path}/answer"), json!({"answers": ["Yes"]}))
        .header("Beckon-Api-Version", "2")
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    assert_eq!((answered["status"].as_str(), answered.get("questions")), (Some("answered"), None), "{answered}");

    let unknown = s.get(&path).header("Beckon-Api-Version", "3").send().await.unwrap();
    assert_eq!(error(unknown, StatusCode::BAD_REQUEST).await["kind"], "bad_request");
}
