//! How fast the runtime reacts: a question reaches the notifier, and an answer reaches the
//! model as the next request to a provider on loopback (a fake speaking Anthropic's real
//! streaming wire format).

use beckon_core::GivenAnswers;
use std::time::{Duration, Instant};

use beckon_core::{AnsweredVia, QuestionRequest};
use beckon_runtime::{Decision, ExternalAsk};
use serde_json::{Value, json};

use crate::Failure;
use crate::fake_llm::{FakeLlm, Reply};
use crate::rig::Rig;
use crate::stats::Summary;

/// The agent that runs on the fake provider.
const AGENT: &str = "deployer";

/// Ask → notifier and answer → next LLM request.
#[derive(Debug, Clone, Copy)]
pub struct Latencies {
    /// An external agent's ask → the notifier is told.
    pub external_ask: Summary,
    /// The provider's reply carrying `ask_user_question` sent → the notifier is told.
    pub in_app_ask: Summary,
    /// The person's answer → the next request arrives at the provider.
    pub answer_to_request: Summary,
}

impl Latencies {
    /// As JSON.
    pub fn to_json(self) -> Value {
        json!({"external_ask_to_notifier": self.external_ask.to_json(), "in_app_ask_to_notifier": self.in_app_ask.to_json(),
               "answer_to_next_llm_request": self.answer_to_request.to_json()})
    }
}

fn question() -> Value {
    json!({"questions": [{"question": "Which region?", "header": "Region", "multiSelect": false,
        "options": [{"label": "eu-west", "description": "Ireland"}, {"label": "us-east", "description": "Virginia"}]}]})
}

/// `rounds` of each, on a fresh runtime in `data_dir`.
pub async fn measure(data_dir: &std::path::Path, rounds: usize) -> Result<Latencies, Failure> {
    let agents = data_dir.join("agents");
    std::fs::create_dir_all(&agents)?;
    std::fs::write(
        agents.join(format!("{AGENT}.md")),
        format!("---\nname: {AGENT}\nprovider: anthropic\n---\nDeploys."),
    )?;
    let fake = FakeLlm::start().await;
    fake.time_replies();
    let rig = Rig::start(data_dir, Some(&fake.url)).await?;
    let request = QuestionRequest::parse(&question()).map_err(|problems| format!("{problems:?}"))?;

    let mut external = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let started = Instant::now();
        let asked = rig
            .beckon
            .ask_external(ExternalAsk {
                agent: "bench".into(),
                request: Some(request.clone()),
                ..ExternalAsk::default()
            })
            .await?;
        let (_, told) = rig.pending(asked.session_id).await?;
        external.push(told.saturating_duration_since(started));
    }

    let (mut in_app, mut resume) = (Vec::with_capacity(rounds), Vec::with_capacity(rounds));
    for round in 0..rounds {
        fake.push(Reply::tools("", &[("ask_user_question", question())]));
        let session = rig.beckon.start_session(AGENT, "Deploy").await?;
        let (request_id, told) = rig.pending(session).await?;
        let sent = *fake.finished().get(2 * round).ok_or("the provider's reply was not timed")?;
        in_app.push(told.saturating_duration_since(sent));
        fake.push(Reply::text("Deployed."));
        let before = fake.received_count();
        let answering = Instant::now();
        rig.beckon
            .resolve(request_id, AnsweredVia::Window, Decision::Answer(GivenAnswers::Texts(vec!["us-east".to_owned()])))
            .await?;
        let received = fake.wait_for(before + 1, Duration::from_secs(30)).await;
        resume.push(received[before].at.saturating_duration_since(answering));
        rig.completed(session).await?;
    }
    rig.stop().await;
    Ok(Latencies {
        external_ask: Summary::of(external).ok_or("no rounds")?,
        in_app_ask: Summary::of(in_app).ok_or("no rounds")?,
        answer_to_request: Summary::of(resume).ok_or("no rounds")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_round_is_measured() {
        let dir = tempfile::tempdir().unwrap();
        let figures = measure(dir.path(), 4).await.unwrap();
        assert_eq!(figures.external_ask.count, 4);
        assert_eq!(figures.in_app_ask.count, 4);
        assert_eq!(figures.answer_to_request.count, 4);
        assert!(figures.answer_to_request.median > Duration::ZERO);
    }
}
