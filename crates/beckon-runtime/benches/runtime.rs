//! The runtime's figures: `cargo bench -p beckon-runtime` (add `-- --quick` for fewer rounds).
//!
//! Prints median and p99 of ask → notifier called (an external ask, and an in-app one from the
//! moment a loopback provider has sent the `ask_user_question` call), of answer → the next LLM
//! request arriving at that provider, and the total time and peak RSS of 1,000 concurrent demo
//! sessions run to their question, answered, and run to completion.

#![allow(clippy::expect_used, clippy::unwrap_used)]

#[path = "../tests/support/fake_llm.rs"]
mod fake_llm;

use std::sync::Arc;
use std::time::{Duration, Instant};

use beckon_core::conversation::SessionStatus;
use beckon_core::{AnsweredVia, QuestionRequest};
use beckon_runtime::{Beckon, ExternalAsk, ProviderSettings, Recorded, RecordingNotifier, RuntimeConfig, StartOptions};
use fake_llm::{FakeLlm, Reply};
use serde_json::json;

fn stats(mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort_unstable();
    let at = |p: f64| samples[((p * samples.len() as f64).ceil() as usize).clamp(1, samples.len()) - 1];
    (at(0.5), at(0.99))
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib: f64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0.0);
    kib / 1024.0
}

fn question() -> serde_json::Value {
    json!({"questions": [{"question": "Which region?", "header": "Region", "multiSelect": false,
        "options": [{"label": "eu-west", "description": "Ireland"}, {"label": "us-east", "description": "Virginia"}]}]})
}

async fn start(dir: &std::path::Path, fake: Option<&FakeLlm>) -> (Beckon, Arc<RecordingNotifier>) {
    let mut config = RuntimeConfig::new(dir);
    if let Some(fake) = fake {
        config.anthropic =
            ProviderSettings { api_key: Some("bench".into()), base_url: Some(fake.url.clone()), model: None };
    }
    let notifier = Arc::new(RecordingNotifier::default());
    let beckon =
        Beckon::start(config, StartOptions { notifier: notifier.clone(), ..StartOptions::default() }).await.unwrap();
    (beckon, notifier)
}

async fn latencies(rounds: usize) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("agents")).unwrap();
    std::fs::write(dir.path().join("agents/deployer.md"), "---\nname: deployer\nprovider: anthropic\n---\nDeploy.")
        .unwrap();
    let fake = FakeLlm::start().await;
    fake.time_replies();
    let (beckon, notifier) = start(dir.path(), Some(&fake)).await;
    let request = QuestionRequest::parse(&question()).unwrap();

    let mut external = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let started = Instant::now();
        let asked = beckon
            .ask_external(ExternalAsk {
                agent: "bench".into(),
                request: Some(request.clone()),
                ..ExternalAsk::default()
            })
            .await
            .unwrap();
        notifier
            .wait_for(
                Duration::from_secs(10),
                |c| matches!(c, Recorded::Pending(n) if n.request_id == asked.request_id),
            )
            .await
            .unwrap();
        external.push(notifier.pending_at(asked.request_id).unwrap() - started);
    }

    let (mut in_app, mut resume) = (Vec::with_capacity(rounds), Vec::with_capacity(rounds));
    for round in 0..rounds {
        fake.push(Reply::tools("", &[("ask_user_question", question())]));
        let session = beckon.start_session("deployer", "Deploy").await.unwrap();
        let found = notifier
            .wait_for(Duration::from_secs(10), |c| matches!(c, Recorded::Pending(n) if n.session_id == session))
            .await
            .unwrap();
        let Recorded::Pending(notice) = found else { unreachable!() };
        let sent = fake.finished()[2 * round];
        in_app.push(notifier.pending_at(notice.request_id).unwrap() - sent);
        fake.push(Reply::text("done"));
        let before = fake.received().len();
        let started = Instant::now();
        beckon.answer_texts(notice.request_id, &["us-east".into()], AnsweredVia::Window).await.unwrap();
        let received = fake.wait_for(before + 1, Duration::from_secs(10)).await;
        resume.push(received[before].at - started);
    }
    println!("{:<52} {:>10} {:>10}", "latency", "median", "p99");
    for (name, samples) in [
        ("ask → notifier called (external ask)", external),
        ("ask → notifier called (in-app, from provider reply)", in_app),
        ("answer → next LLM request at the provider", resume),
    ] {
        let (median, p99) = stats(samples);
        println!("{name:<52} {:>10} {:>10}", ms(median), ms(p99));
    }
    beckon.shutdown().await;
}

/// 1,000 demo sessions at once: each runs to its question, is answered, and completes.
async fn concurrent_sessions(count: usize) {
    let dir = tempfile::tempdir().unwrap();
    let (beckon, notifier) = start(dir.path(), None).await;
    let baseline = peak_rss_mib();
    let started = Instant::now();
    let mut starts = Vec::with_capacity(count);
    for i in 0..count {
        let beckon = beckon.clone();
        starts.push(tokio::spawn(async move {
            beckon.start_session("poet", &format!("a poem about wave {i}")).await.unwrap()
        }));
    }
    let mut sessions = Vec::with_capacity(count);
    for handle in starts {
        sessions.push(handle.await.unwrap());
    }
    let deadline = Duration::from_secs(600);
    let asked = Instant::now();
    while notifier.calls().iter().filter(|c| matches!(c, Recorded::Pending(_))).count() < count {
        assert!(asked.elapsed() < deadline, "not every session asked");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let to_questions = started.elapsed();
    let pending = beckon.pending().await.unwrap();
    assert_eq!(pending.len(), count);
    let mut answers = Vec::with_capacity(count);
    for question in pending {
        let beckon = beckon.clone();
        answers.push(tokio::spawn(async move {
            beckon.answer_texts(question.id, &["Haiku".into(), "Warm".into()], AnsweredVia::Window).await.unwrap();
        }));
    }
    for handle in answers {
        handle.await.unwrap();
    }
    for session in &sessions {
        loop {
            let status = beckon.session(*session).await.unwrap().session.status;
            if status == SessionStatus::Completed {
                break;
            }
            assert!(started.elapsed() < deadline, "a session did not complete");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
    let total = started.elapsed();
    println!();
    println!("{count} concurrent demo sessions (ask → answer → complete)");
    println!("  all asked after                                  {:>10}", ms(to_questions));
    println!("  all completed after                              {:>10}", ms(total));
    println!("  sessions per second                              {:>10.0}", count as f64 / total.as_secs_f64());
    println!("  peak RSS (process, before: {baseline:.1} MiB)          {:>7.1} MiB", peak_rss_mib());
    beckon.shutdown().await;
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    if args.iter().any(|a| a == "--sessions-only") {
        runtime.block_on(concurrent_sessions(if quick { 200 } else { 1000 }));
        return;
    }
    println!("beckon-runtime benchmark{}", if quick { " (quick)" } else { "" });
    println!();
    runtime.block_on(latencies(if quick { 50 } else { 300 }));
    // A fresh process, so its peak RSS is the sessions' alone.
    let mut child = std::process::Command::new(std::env::current_exe().unwrap());
    child.arg("--sessions-only");
    if quick {
        child.arg("--quick");
    }
    let status = child.status().unwrap();
    assert!(status.success());
}
