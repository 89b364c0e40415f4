//! Inboxes filled before the app starts, as many agents would fill them: questions asked
//! straight through the runtime on a home's data folder.

use beckon_core::{Approval, QuestionRequest};
use beckon_runtime::{Beckon, ExternalAsk, RuntimeConfig, StartOptions};
use serde_json::json;

use crate::{Failure, Home};

/// Projects the seeded questions come from.
pub const PROJECTS: [&str; 5] = ["shop", "api", "docs", "infra", "mobile"];
/// How many agents ask.
pub const AGENTS: usize = 20;

/// What the `i`th seeded question is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seeded {
    /// The agent that asks (`release-bot-N`).
    pub agent: String,
    /// The project folder, for an approval.
    pub project: Option<String>,
    /// The command an approval asks to run, or the question's text.
    pub text: String,
}

impl Seeded {
    /// The `i`th question: two in three are approvals to run `npm run build -- --shard i` in
    /// one of five projects, the rest questions; twenty agents take turns.
    pub fn nth(i: usize) -> Seeded {
        let project = PROJECTS[i % PROJECTS.len()];
        let agent = format!("release-bot-{}", i % AGENTS);
        if i % 3 == 2 {
            Seeded {
                agent,
                project: None,
                text: format!("Ship release candidate {i} of {project} to the staging fleet?"),
            }
        } else {
            Seeded {
                agent,
                project: Some(format!("/home/ada/{project}")),
                text: format!("npm run build -- --shard {i}"),
            }
        }
    }

    fn request(&self, i: usize) -> Result<QuestionRequest, Failure> {
        let request = match &self.project {
            None => QuestionRequest::parse(&json!({"questions": [{
                "question": self.text,
                "header": "Release",
                "options": [{"label": "Ship", "description": "Roll it out now"}, {"label": "Wait"}]
            }]})),
            Some(project) => Approval::parse(
                &json!({"tool_name": "Bash", "input": {"command": self.text}, "project": project,
                    "session": format!("bench-{}", i % AGENTS)}),
                "approval",
            )
            .map(QuestionRequest::for_approval),
        };
        request.map_err(|problems| format!("{problems:?}").into())
    }
}

/// Asks the first `count` of [`Seeded::nth`] in `home`'s data folder, concurrently as many
/// agents would (with none, it only sets up the data folder as a first start does).
pub async fn pending(home: &Home, count: usize) -> Result<(), Failure> {
    let beckon = Beckon::start(RuntimeConfig::new(home.data_dir()), StartOptions::default()).await?;
    let mut asks = tokio::task::JoinSet::new();
    for i in 0..count {
        let seeded = Seeded::nth(i);
        let request = seeded.request(i)?;
        let beckon = beckon.clone();
        asks.spawn(async move {
            beckon.ask_external(ExternalAsk { agent: seeded.agent, request: Some(request), ..Default::default() }).await
        });
        if asks.len() >= 64 {
            asks.join_next().await.ok_or("no ask was running")???;
        }
    }
    while let Some(asked) = asks.join_next().await {
        asked??;
    }
    beckon.shutdown().await;
    Ok(())
}
