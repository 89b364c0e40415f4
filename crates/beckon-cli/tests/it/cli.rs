//! The `beckon` binary end to end against `beckon serve` in a temporary data folder: asking in
//! one process and answering in another, every exit code, Ctrl-C, and the errors people see.

use std::process::Output;
use std::time::Duration;

use beckon_api::QuestionStatus;
use beckon_core::Outcome;
use beckon_gateway::Discovery;
use serde_json::{Value, json};
use tokio::process::Child;

use crate::support::served::{Served, beckon, output, text};

impl Served {
    /// Starts `beckon ask` with `args` and waits until its question is pending; its id.
    async fn ask(&self, args: &[&str]) -> (Child, Value) {
        let child = self.beckon().arg("ask").args(args).spawn().unwrap();
        let what = format!("{:?} becoming pending", args[0]);
        let question = self
            .pending_where(&what, Duration::from_secs(30), |q| q["input"]["questions"][0]["question"] == args[0])
            .await;
        (child, question)
    }

    async fn post(&self, path: &str, body: Value) -> reqwest::Response {
        let endpoint = self.client.endpoint();
        reqwest::Client::new()
            .post(format!("{}{path}", endpoint.url))
            .bearer_auth(&endpoint.token)
            .json(&body)
            .send()
            .await
            .unwrap()
    }
}

async fn finished(child: Child) -> Output {
    tokio::time::timeout(Duration::from_secs(60), child.wait_with_output()).await.expect("beckon ask hung").unwrap()
}

fn id(question: &Value) -> String {
    question["request_id"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_in_one_process_and_answer_in_another() {
    let served = Served::start("cli-test").await;
    let (asking, question) = served.ask(&["Deploy to prod?", "-o", "Yes", "-o", "No", "--header", "Deploy"]).await;
    let listed = output(served.beckon().arg("pending")).await;
    assert!(listed.status.success());
    let table = text(&listed.stdout);
    assert!(table.starts_with("ID  ") || table.starts_with("ID "), "{table}");
    assert!(table.contains(&id(&question)) && table.contains("[Deploy] Deploy to prod?") && table.contains("cli"));
    let answered = output(served.beckon().args(["answer", &id(&question), "Yes"])).await;
    assert_eq!(answered.status.code(), Some(0), "{}", text(&answered.stderr));
    assert_eq!(text(&answered.stdout), "Yes\n");
    let asked = finished(asking).await;
    assert_eq!(asked.status.code(), Some(0), "{}", text(&asked.stderr));
    assert_eq!(text(&asked.stdout), "Yes\n");
    let empty = output(served.beckon().arg("pending")).await;
    assert_eq!(text(&empty.stdout), "No questions are waiting.\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn multi_select_free_text_and_json_answers() {
    let served = Served::start("cli-test").await;
    let (asking, question) =
        served.ask(&["Which regions?", "-o", "eu", "-o", "us", "-o", "ap", "--multi", "--other", "--json"]).await;
    let answered = output(served.beckon().args(["answer", &id(&question), "eu, ap"])).await;
    assert_eq!(text(&answered.stdout), "eu, ap\n", "{}", text(&answered.stderr));
    let asked = finished(asking).await;
    assert_eq!(asked.status.code(), Some(0));
    let result: Value = serde_json::from_slice(&asked.stdout).unwrap();
    assert_eq!(result["outcome"], "answered");
    assert_eq!(result["answers"], json!({"Which regions?": "eu, ap"}));
    assert_eq!(result["questions"][0]["question"], "Which regions?");
    assert!(result.get("annotations").is_none(), "no comment, no preview: {result}");

    let (asking, question) = served.ask(&["Why the delay?"]).await;
    assert_eq!(question["input"]["questions"][0]["schema"], json!({"type": "string"}));
    let answered = output(served.beckon().args(["answer", &id(&question), "Waiting on review"])).await;
    assert!(answered.status.success(), "{}", text(&answered.stderr));
    assert_eq!(text(&finished(asking).await.stdout), "Waiting on review\n");

    let again = output(served.beckon().args(["answer", &id(&question), "Something else"])).await;
    assert_eq!(again.status.code(), Some(1), "a different second answer is refused");
    assert!(text(&again.stderr).starts_with("error: question ") && text(&again.stderr).contains("answered"));
    let unknown = output(served.beckon().args(["answer", "0190f1d2-0000-7000-8000-00000000beef", "x"])).await;
    assert_eq!(unknown.status.code(), Some(1));
    assert!(text(&unknown.stderr).contains("not found"), "{}", text(&unknown.stderr));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_ask_user_question_input_from_stdin_gets_claude_codes_result() {
    use tokio::io::AsyncWriteExt;
    let served = Served::start("cli-test").await;
    let input = json!({"questions": [
        {"question": "Which layout?", "header": "Layout", "multiSelect": false, "options": [
            {"label": "Tabs", "description": "One per area", "preview": "[General] [Keys]"},
            {"label": "One page", "description": "All in one", "preview": "General\nKeys"}]},
        {"question": "Which areas?", "header": "Areas", "multiSelect": true, "options": [
            {"label": "Keys", "description": "API keys"}, {"label": "Data", "description": "The data folder"}]}
    ], "metadata": {"source": "script"}});
    let mut asking =
        served.beckon().args(["ask", "--input", "-", "--json"]).stdin(std::process::Stdio::piped()).spawn().unwrap();
    let mut stdin = asking.stdin.take().unwrap();
    stdin.write_all(input.to_string().as_bytes()).await.unwrap();
    drop(stdin);
    let question = served.first_pending("the question becoming pending", Duration::from_secs(30)).await;
    assert_eq!(question["input"], input, "asked as given, previews and metadata included");
    let answer = json!({"answers": {"Which layout?": {"selected": ["Tabs"], "comment": "familiar"}, "Which areas?": "Keys, Data"}});
    let response = served.post(&format!("/v1/questions/{}/answer", id(&question)), answer).await;
    assert!(response.status().is_success(), "{}", response.status());

    let asked = finished(asking).await;
    assert_eq!(asked.status.code(), Some(0), "{}", text(&asked.stderr));
    let result: Value = serde_json::from_slice(&asked.stdout).unwrap();
    assert_eq!(
        result,
        json!({
            "outcome": "answered",
            "questions": input["questions"],
            "answers": {"Which layout?": "Tabs", "Which areas?": "Keys, Data"},
            "annotations": {"Which layout?": {"notes": "familiar", "preview": "[General] [Keys]"}}
        })
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_input_file_is_refused_before_anything_is_asked() {
    let served = Served::start("cli-test").await;
    let file = served.dir.path().join("question.json");
    std::fs::write(
        &file,
        r#"{"questions": [{"question": "Q?", "header": "Far too long a header", "options": [{"label": "A"}]}]}"#,
    )
    .unwrap();
    let refused = output(served.beckon().args(["ask", "--input"]).arg(&file)).await;
    assert_eq!(refused.status.code(), Some(1));
    let stderr = text(&refused.stderr);
    assert!(stderr.contains("is not a question Beckon can ask"), "{stderr}");
    assert!(stderr.contains("questions[0].header: is 21 characters long"), "{stderr}");
    assert!(stderr.contains("questions[0].options: has 1 options"), "{stderr}");
    let missing = output(served.beckon().args(["ask", "--input", "/nonexistent/question.json"])).await;
    assert_eq!(missing.status.code(), Some(1));
    assert!(text(&missing.stderr).contains("cannot read the question from /nonexistent/question.json"));
    let both = output(served.beckon().args(["ask", "Q?", "--input", "-"])).await;
    assert_eq!(both.status.code(), Some(1), "a usage error, never the 2 of a decline: {}", text(&both.stderr));
    assert!(text(&both.stderr).contains("cannot be used with"), "{}", text(&both.stderr));
    assert!(served.client.pending().await.unwrap().is_empty(), "nothing was asked");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn declined_exits_2_expired_3_cancelled_4() {
    let served = Served::start("cli-test").await;
    let (asking, question) = served.ask(&["Decline me?", "-o", "A", "-o", "B"]).await;
    let declined =
        served.post(&format!("/v1/questions/{}/decline", id(&question)), json!({"reason": "not today"})).await;
    assert!(declined.status().is_success());
    let asked = finished(asking).await;
    assert_eq!(asked.status.code(), Some(2));
    assert_eq!(text(&asked.stdout), "");
    assert!(text(&asked.stderr).contains("declined to answer: not today"), "{}", text(&asked.stderr));

    let expiring =
        served.beckon().args(["ask", "Expire me?", "-o", "A", "-o", "B", "--timeout", "1s"]).spawn().unwrap();
    let asked = finished(expiring).await;
    assert_eq!(asked.status.code(), Some(3), "{}", text(&asked.stderr));
    assert!(text(&asked.stderr).contains("Nobody answered before the deadline"));

    let (asking, question) = served.ask(&["Cancel me?", "-o", "A", "-o", "B", "--session-key", "run-7"]).await;
    let session = question["session_id"].as_str().unwrap();
    let cancelled = served.post(&format!("/v1/sessions/{session}/cancel"), json!({"reason": "build aborted"})).await;
    assert!(cancelled.status().is_success());
    let asked = finished(asking).await;
    assert_eq!(asked.status.code(), Some(4), "{}", text(&asked.stderr));
    assert!(text(&asked.stderr).contains("cancelled: build aborted"), "{}", text(&asked.stderr));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_withdraws_the_question_as_cancelled_by_the_asker() {
    let served = Served::start("cli-test").await;
    let (asking, question) = served.ask(&["Interrupt me?", "-o", "A", "-o", "B"]).await;
    let pid = asking.id().unwrap().to_string();
    let killed = std::process::Command::new("kill").args(["-INT", &pid]).status().unwrap();
    assert!(killed.success());
    let asked = finished(asking).await;
    assert_eq!(asked.status.code(), Some(130), "{}", text(&asked.stderr));
    let view = served.client.question(&id(&question), Duration::ZERO).await.unwrap();
    // The asker went away; the person did not decline anything.
    assert_eq!(view.status, QuestionStatus::Cancelled);
    assert_eq!(view.outcome, Some(Outcome::Cancelled { reason: Some("withdrawn by the asking script".into()) }));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_says_where_beckon_runs_and_serve_stops_cleanly() {
    let mut served = Served::start("cli-test").await;
    served.ask(&["Still waiting?", "-o", "A", "-o", "B"]).await;
    let status = output(served.beckon().arg("status")).await;
    assert!(status.status.success());
    let said = text(&status.stdout);
    assert!(said.contains(&format!("Beckon is running at {}", served.client.endpoint().url)), "{said}");
    assert!(said.contains("Pending questions: 1") && said.contains("Data folder: "), "{said}");
    let json: Value = serde_json::from_slice(&output(served.beckon().args(["status", "--json"])).await.stdout).unwrap();
    assert_eq!((json["running"].clone(), json["pending"].clone()), (json!(true), json!(1)));

    let second = output(served.beckon().args(["serve", "--port", "0"])).await;
    assert_eq!(second.status.code(), Some(1));
    let refused = text(&second.stderr);
    assert!(refused.contains("already in use by beckon serve (pid "), "the lock holder is named: {refused}");

    let pid = served.serve.id().unwrap().to_string();
    assert!(std::process::Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let stopped = tokio::time::timeout(Duration::from_secs(30), served.serve.wait()).await.unwrap().unwrap();
    assert_eq!(stopped.code(), Some(0));
    assert!(Discovery::read(served.dir.path()).is_err(), "gateway.json is removed");
    let after = output(served.beckon().arg("status")).await;
    assert_eq!(after.status.code(), Some(1));
    assert!(text(&after.stderr).contains("Beckon is not running"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn not_running_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let asked = output(beckon(dir.path()).args(["ask", "Anyone?", "-o", "A", "-o", "B"])).await;
    assert_eq!(asked.status.code(), Some(1));
    let said = text(&asked.stderr);
    let file = dir.path().join("gateway.json");
    assert_eq!(
        said,
        format!("error: Beckon is not running (no gateway at {}); start the app or `beckon serve`\n", file.display())
    );
    // A gateway.json left behind by a crash points at a closed port.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    Discovery { url: format!("http://{closed}"), token: "stale".into(), pid: 1, socket: None }
        .write(dir.path())
        .unwrap();
    for args in [&["pending"][..], &["status"], &["answer", "0190f1d2-0000-7000-8000-00000000beef", "A"]] {
        let out = output(beckon(dir.path()).args(args)).await;
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(text(&out.stderr).contains(&format!("Beckon is not running (no gateway at http://{closed})")));
    }
    let json = output(beckon(dir.path()).args(["status", "--json"])).await;
    assert_eq!(json.status.code(), Some(1));
    assert_eq!(serde_json::from_slice::<Value>(&json.stdout).unwrap()["running"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gateway_errors_are_printed_from_their_body() {
    let served = Served::start("cli-test").await;
    let bad =
        output(served.beckon().args(["ask", "Too few?", "-o", "Only", "--header", "Far too long a header"])).await;
    assert_eq!(bad.status.code(), Some(1));
    let said = text(&bad.stderr);
    assert!(said.contains("questions[0].options") && said.contains("questions[0].header"), "{said}");
    let timeout = output(served.beckon().args(["ask", "When?", "--timeout", "soon"])).await;
    assert_eq!(timeout.status.code(), Some(1));
    assert!(text(&timeout.stderr).contains("timeout"), "{}", text(&timeout.stderr));
}
