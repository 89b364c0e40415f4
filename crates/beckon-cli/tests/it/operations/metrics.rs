//! `--metrics-listen`: `GET /metrics` on a listener of its own, in a format `promtool` accepts,
//! with figures that move as a question is asked, waited on and answered; never on the
//! gateway's port, and never with what was asked or by whom.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::json;

use super::{PATIENCE, Replica, eventually, http, notes_block};
use crate::support::metrics::sample;
use crate::support::serve_start::free_port;

/// A scrape: its text, checked by `promtool check metrics` (which fails on a format error and on
/// anything its linter objects to).
pub(crate) async fn scrape(addr: &str) -> String {
    let response = http().get(format!("http://{addr}/metrics")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let kind = response.headers()["content-type"].to_str().unwrap().to_owned();
    assert_eq!(kind, "text/plain; version=0.0.4; charset=utf-8");
    let text = response.text().await.unwrap();
    let checked = text.clone();
    let said = tokio::task::spawn_blocking(move || {
        let mut promtool = Command::new("promtool")
            .args(["check", "metrics"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("promtool runs (Debian's `prometheus` package, which scripts/install-deps installs)");
        promtool.stdin.take().unwrap().write_all(checked.as_bytes()).unwrap();
        promtool.wait_with_output().unwrap()
    })
    .await
    .unwrap();
    assert!(
        said.status.success(),
        "promtool check metrics ({}):\n{}{}\non:\n{text}",
        said.status,
        String::from_utf8_lossy(&said.stdout),
        String::from_utf8_lossy(&said.stderr)
    );
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_move_with_a_question_and_pass_promtool() {
    let addr = format!("127.0.0.1:{}", free_port());
    let replica = Replica::start(&["--metrics-listen", &addr]).await;

    let before = scrape(&addr).await;
    for (series, value) in [
        ("beckon_ready", 1.0),
        ("beckon_questions_pending", 0.0),
        ("beckon_questions_asked_total", 0.0),
        ("beckon_long_polls_open", 0.0),
        ("beckon_long_polls_limit", 1200.0),
        ("beckon_connections_limit{door=\"tcp\"}", 2048.0),
    ] {
        assert_eq!(sample(&before, series), Some(value), "{series} in:\n{before}");
    }
    let version = format!("beckon_build_info{{version=\"{}\"}}", env!("CARGO_PKG_VERSION"));
    assert_eq!(sample(&before, &version), Some(1.0), "{before}");
    let accepted = |text: &str| sample(text, "beckon_connections_accepted_total{door=\"tcp\"}").unwrap();
    let ok = |text: &str| sample(text, "beckon_http_responses_total{class=\"2xx\"}").unwrap();

    // The gateway's own port has no metrics, with a token or without.
    let on_gateway = replica.request(reqwest::Method::GET, "/metrics").send().await.unwrap();
    assert_eq!(on_gateway.status(), 404);
    assert!(!on_gateway.text().await.unwrap().contains("beckon_ready"));

    let id = replica.ask("release-42", json!({})).await;
    // An agent waits for the answer.
    let waiting = tokio::spawn(replica.request(reqwest::Method::GET, &format!("/v1/questions/{id}?wait=60")).send());
    let during = eventually("the question and its wait in the metrics", PATIENCE, || async {
        let text = scrape(&addr).await;
        let seen = sample(&text, "beckon_questions_asked_total") == Some(1.0)
            && sample(&text, "beckon_long_polls_open") == Some(1.0);
        seen.then_some(text)
    })
    .await;
    assert_eq!(sample(&during, "beckon_questions_pending"), Some(1.0), "{during}");
    assert_eq!(sample(&during, "beckon_sessions_active{status=\"waiting_for_input\"}"), Some(1.0), "{during}");
    assert!(sample(&during, "beckon_oldest_pending_question_age_seconds").unwrap() >= 0.0);
    assert!(accepted(&during) > accepted(&before), "{during}");
    assert!(ok(&during) > ok(&before), "the question's 201 counts: {during}");
    for private in ["Ship build 42", "release-bot", "release-42", id.as_str()] {
        assert!(!during.contains(private), "{private:?} is in the metrics:\n{during}");
    }

    replica.answer(&id, "Yes").await;
    let waited = waiting.await.unwrap().unwrap();
    assert_eq!(waited.status(), 200);
    let after = eventually("the answer in the metrics", PATIENCE, || async {
        let text = scrape(&addr).await;
        (sample(&text, "beckon_questions_resolved_total{status=\"answered\"}") == Some(1.0)).then_some(text)
    })
    .await;
    assert_eq!(sample(&after, "beckon_questions_pending"), Some(0.0), "{after}");
    assert_eq!(sample(&after, "beckon_long_polls_open"), Some(0.0), "{after}");
    assert_eq!(sample(&after, "beckon_questions_resolved_total{status=\"declined\"}"), Some(0.0), "{after}");
    assert_eq!(sample(&after, "beckon_oldest_pending_question_age_seconds"), Some(0.0), "{after}");
    assert!(
        sample(&after, "beckon_store_commits_total").unwrap() > sample(&before, "beckon_store_commits_total").unwrap()
    );
    replica.server.stop().await;
}

#[test]
fn a_metrics_address_that_cannot_be_had_stops_the_start() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let said = crate::support::serve_start::refused(&["--metrics-listen", &addr]);
    assert!(said.contains("metrics") && said.contains(&addr), "{said}");
}

#[test]
fn the_notes_prometheus_configuration_and_alerts_pass_promtool() {
    let dir = tempfile::tempdir().unwrap();
    for file in ["prometheus.yml", "beckon-alerts.yml"] {
        std::fs::write(dir.path().join(file), notes_block(&format!("# {file}"))).unwrap();
    }
    // Checking the configuration checks the rule files it names too.
    let said = Command::new("promtool")
        .args(["check", "config", "prometheus.yml"])
        .current_dir(dir.path())
        .output()
        .expect("promtool runs (Debian's `prometheus` package, which scripts/install-deps installs)");
    let text = format!("{}{}", String::from_utf8_lossy(&said.stdout), String::from_utf8_lossy(&said.stderr));
    assert!(said.status.success() && text.contains("4 rules found"), "promtool check config:\n{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_ins_are_counted_and_people_signed_in_are_shown() {
    let client = beckon_test_idp::Client {
        id: "beckon".into(),
        secret: None,
        redirect_uris: vec!["http://127.0.0.1/auth/callback".into()],
    };
    let ada = beckon_test_idp::Person {
        subject: "ada".into(),
        email: "ada@example.com".into(),
        name: "Ada".into(),
        groups: vec!["eng".into()],
    };
    let idp = beckon_test_idp::Provider::start(vec![client], vec![ada]).await.unwrap();
    let addr = format!("127.0.0.1:{}", free_port());
    let replica =
        Replica::start(&["--metrics-listen", &addr, "--oidc-issuer", idp.issuer(), "--oidc-client-id", "beckon"]).await;
    let before = scrape(&addr).await;
    assert_eq!(sample(&before, "beckon_sign_ins_total{outcome=\"completed\"}"), Some(0.0), "{before}");
    assert_eq!(sample(&before, "beckon_signed_in_sessions{kind=\"browser\"}"), Some(0.0), "{before}");

    let mut browser = beckon_test_idp::Browser::default();
    let done = browser.sign_in(&replica.endpoint().url, "ada", "/").await.unwrap().unwrap();
    assert_eq!(done.status, 303, "{}", done.body);
    // A callback this browser did not begin is refused.
    let forged = http().get(format!("{}/auth/callback?code=x&state=y", replica.endpoint().url)).send().await.unwrap();
    assert_eq!(forged.status(), 400);

    let after = scrape(&addr).await;
    assert_eq!(sample(&after, "beckon_sign_ins_total{outcome=\"completed\"}"), Some(1.0), "{after}");
    assert_eq!(sample(&after, "beckon_sign_ins_total{outcome=\"refused\"}"), Some(1.0), "{after}");
    assert_eq!(sample(&after, "beckon_signed_in_sessions{kind=\"browser\"}"), Some(1.0), "{after}");
    assert_eq!(sample(&after, "beckon_signed_in_sessions{kind=\"app\"}"), Some(0.0), "{after}");
    for private in ["ada@example.com", "\"ada\"", "\"Ada\"", "\"eng\""] {
        assert!(!after.contains(private), "{private:?} is in the metrics:\n{after}");
    }
    replica.server.stop().await;
}
