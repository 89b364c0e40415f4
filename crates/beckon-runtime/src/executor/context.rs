//! What an executor knows about its session besides its state.

use std::path::PathBuf;
use std::sync::Arc;

use beckon_core::SessionId;
use beckon_core::conversation::{Message, Origin, State};
use beckon_store::{SessionRecord, Store};

use super::shared::Executor;
use crate::agents::Agent;
use crate::error::{Error, Result};

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

/// What the store knows of a session that its task needs.
#[derive(Debug)]
pub(crate) struct Facts {
    id: SessionId,
    agent: String,
    parent: Option<SessionId>,
    external_key: Option<String>,
    state: State,
    /// The sessions above it and their agents, its parent first.
    ancestors: Vec<(SessionId, String)>,
    /// Its conversation as the model sees it (questions and answers left out).
    history: Vec<Message>,
}

impl Facts {
    /// Reads a session's facts, in one job on the store's thread.
    pub(crate) fn read(store: &Store, id: SessionId) -> beckon_store::Result<Option<Facts>> {
        let Some(record) = store.read().session(id)? else { return Ok(None) };
        Facts::of(store, record).map(Some)
    }

    /// The facts of a session whose record was just read.
    pub(crate) fn of(store: &Store, record: SessionRecord) -> beckon_store::Result<Facts> {
        let read = store.read();
        let id = record.id;
        let mut ancestors = Vec::new();
        // A top-level session has none: not worth a trip to the database.
        let above = if record.parent.is_some() { read.ancestors(id)? } else { Vec::new() };
        for ancestor in above {
            if let Some(session) = read.session(ancestor)? {
                ancestors.push((session.id, session.agent));
            }
        }
        let history = read
            .timeline(id)?
            .into_iter()
            .map(|entry| entry.message)
            .filter(|message| !matches!(message, Message::Question { .. } | Message::Answer { .. }))
            .collect();
        Ok(Facts {
            id,
            agent: record.agent,
            parent: record.parent,
            external_key: record.external_key,
            state: record.state,
            ancestors,
            history,
        })
    }

    /// A top-level session's facts as just written: nothing to read.
    pub(crate) fn fresh(id: SessionId, agent: String, state: State, history: Vec<Message>) -> Facts {
        Facts { id, agent, parent: None, external_key: None, state, ancestors: Vec::new(), history }
    }
}

/// Facts read ahead of a session's task, by whoever wakes it: current unless a state of the
/// session was committed after `revision` was read (see `Revisions`).
#[derive(Debug)]
pub(crate) struct Preread {
    pub(crate) facts: Facts,
    pub(crate) revision: u64,
}

/// A session's context, its committed state, and its conversation.
pub(crate) type Loaded = (SessionContext, State, Vec<Message>);

/// Loads a session's context, state and conversation from the store.
pub(crate) async fn load(ex: &Executor, id: SessionId) -> Result<Loaded> {
    let facts = ex.db.call(move |store| Facts::read(store, id)).await?.ok_or(Error::SessionNotFound(id))?;
    build(ex, facts)
}

/// A session's context from its facts.
pub(crate) fn build(ex: &Executor, facts: Facts) -> Result<Loaded> {
    let Facts { id, agent, parent, external_key, state, ancestors, history } = facts;
    let definition = ex
        .agents
        .get(&agent)
        .ok_or_else(|| Error::AgentNotFound { name: agent.clone(), available: ex.agents.names() })?;
    // A sub-agent runs with no more than every agent above it allows.
    let definition = if ancestors.is_empty() {
        definition
    } else {
        let narrowed = ancestors
            .iter()
            .filter_map(|(_, name)| ex.agents.get(name))
            .fold(definition.definition.clone(), |narrowed, ancestor| narrowed.within(&ancestor.definition));
        Arc::new(Agent { definition: narrowed, ..(*definition).clone() })
    };
    let mut origin: Option<Origin> = None;
    for (_, name) in ancestors.iter().rev() {
        origin = Some(match origin {
            None => Origin::agent(name.clone()),
            Some(origin) => origin.child(name.clone()),
        });
    }
    let origin = match origin {
        None => Origin::agent(agent.clone()),
        Some(origin) => origin.child(agent.clone()),
    };
    let spawned_by = match (parent, external_key.as_deref()) {
        (Some(parent), Some(key)) => {
            key.strip_prefix(&format!("{SPAWN_KEY}{parent}:")).map(|tool_use_id| (parent, tool_use_id.to_owned()))
        }
        _ => None,
    };
    let root = ancestors.last().map_or(id, |(root, _)| *root);
    let ctx = SessionContext {
        id,
        agent: definition,
        origin,
        spawned_by,
        depth: ancestors.len(),
        workspace: ex.workspaces.join(root.to_string()),
    };
    Ok((ctx, state, history))
}
