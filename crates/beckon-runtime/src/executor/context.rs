//! What an executor knows about its session besides its state.

use std::path::PathBuf;
use std::sync::Arc;

use beckon_core::SessionId;
use beckon_core::conversation::{Origin, State};

use crate::agents::Agent;
use crate::error::{Error, Result};
use crate::runtime::Runtime;

/// The prefix of a sub-agent session's external key: `spawn:<parent>:<tool_use_id>`.
pub(crate) const SPAWN_KEY: &str = "spawn:";

/// A session's fixed facts.
#[derive(Debug, Clone)]
pub(crate) struct SessionContext {
    pub(crate) id: SessionId,
    pub(crate) agent: Arc<Agent>,
    /// Who asks when this session asks: its agent and every agent above it.
    pub(crate) origin: Origin,
    /// For a sub-agent: the parent session and the `spawn_agent` call waiting for it.
    pub(crate) spawned_by: Option<(SessionId, String)>,
    /// How many sessions are above this one.
    pub(crate) depth: usize,
    /// The files the session's tools work in: the top-level session's workspace.
    pub(crate) workspace: PathBuf,
}

/// The spawn key of a sub-agent session.
pub(crate) fn spawn_key(parent: SessionId, tool_use_id: &str) -> String {
    format!("{SPAWN_KEY}{parent}:{tool_use_id}")
}

/// Loads a session's context and current state.
pub(crate) async fn load(rt: &Runtime, id: SessionId) -> Result<(SessionContext, State)> {
    let (record, ancestors) = rt
        .db
        .call(move |store| {
            let record = store.read().session(id)?;
            let Some(record) = record else { return Ok(None) };
            let mut ancestors = Vec::new();
            for ancestor in store.read().ancestors(id)? {
                if let Some(session) = store.read().session(ancestor)? {
                    ancestors.push((session.id, session.agent));
                }
            }
            Ok(Some((record, ancestors)))
        })
        .await?
        .ok_or(Error::SessionNotFound(id))?;
    let agent = rt
        .agents
        .get(&record.agent)
        .ok_or_else(|| Error::AgentNotFound { name: record.agent.clone(), available: rt.agents.names() })?;
    // A sub-agent runs with no more than every agent above it allows.
    let agent = if ancestors.is_empty() {
        agent
    } else {
        let definition = ancestors
            .iter()
            .filter_map(|(_, name)| rt.agents.get(name))
            .fold(agent.definition.clone(), |definition, ancestor| definition.within(&ancestor.definition));
        Arc::new(Agent { definition, ..(*agent).clone() })
    };
    let mut origin: Option<Origin> = None;
    for (_, name) in ancestors.iter().rev() {
        origin = Some(match origin {
            None => Origin::agent(name.clone()),
            Some(origin) => origin.child(name.clone()),
        });
    }
    let origin = match origin {
        None => Origin::agent(record.agent.clone()),
        Some(origin) => origin.child(record.agent.clone()),
    };
    let spawned_by = match (record.parent, record.external_key.as_deref()) {
        (Some(parent), Some(key)) => {
            key.strip_prefix(&format!("{SPAWN_KEY}{parent}:")).map(|tool_use_id| (parent, tool_use_id.to_owned()))
        }
        _ => None,
    };
    let root = ancestors.last().map_or(id, |(root, _)| *root);
    Ok((
        SessionContext {
            id,
            agent,
            origin,
            spawned_by,
            depth: ancestors.len(),
            workspace: rt.config.workspaces_dir().join(root.to_string()),
        },
        record.state,
    ))
}
