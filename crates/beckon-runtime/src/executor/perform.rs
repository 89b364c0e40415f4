//! Performing a committed transition's outward effects: asking the model, running tools,
//! arming timers, and telling a parent session its sub-agent is done.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use beckon_core::conversation::{
    ASK_USER_QUESTION, Effect, Event, Message, Notice, State, Timer, ToolCall, ToolResult,
};
use beckon_core::question::tool_error_text;
use beckon_core::{QuestionRequest, SessionOrigin};
use beckon_store::NewSession;

use super::context::{Preread, SessionContext, spawn_key};
use super::delivery::{deliver, start_or_send};
use super::llm;
use super::shared::Executor;
use crate::clock::{new_request_id, new_session_id};
use crate::events::TextDelta;
use crate::providers::{LlmRequest, ProviderErrorKind, TextSink, ToolSpec};
use crate::tools;

/// Sessions nested deeper than this may not spawn more sub-agents.
const MAX_SPAWN_DEPTH: usize = 4;
/// The most tokens a model may generate in one turn.
const MAX_TOKENS: u32 = 8192;

/// An outward action in flight (an LLM request, a tool, a backoff): it yields the next event,
/// or nothing when the session is to wait for someone else (a sub-agent).
pub(crate) type Activity = Pin<Box<dyn Future<Output = Option<Event>> + Send>>;

/// Performs `effects` (already committed) and returns what runs next: at most one activity,
/// and events ready now.
pub(super) async fn outward(
    ex: &Arc<Executor>,
    ctx: &SessionContext,
    history: &Arc<Vec<Message>>,
    state: &State,
    effects: &[Effect],
) -> (Option<Activity>, Vec<Event>) {
    let mut activity: Option<Activity> = None;
    let mut events = Vec::new();
    for effect in effects {
        match effect {
            Effect::RequestLlm { attempt } => {
                activity = Some(request_llm(ex.clone(), ctx.clone(), history.clone(), *attempt));
            }
            Effect::ExecuteTool { call } => match execute(ex, ctx, call) {
                Run::Now(event) => events.push(event),
                Run::Later(running) => activity = Some(running),
            },
            Effect::ScheduleTimer { timer: Timer::LlmRetry { attempt }, at_ms } => {
                let (attempt, wait) = (*attempt, ex.clock.sleep_until(*at_ms));
                activity = Some(Box::pin(async move {
                    wait.await;
                    Some(Event::RetryTimerFired { attempt })
                }));
            }
            Effect::ScheduleTimer { timer: Timer::QuestionExpiry { request_id }, at_ms } => {
                ex.deadlines.arm(*request_id, *at_ms);
            }
            Effect::Notify { notice: Notice::TurnCompleted | Notice::Failed { .. } | Notice::Cancelled } => {
                if matches!(state, State::Cancelled) {
                    cancel_children(ex, ctx.id);
                }
                if let Some((parent, tool_use_id)) = &ctx.spawned_by {
                    report_to_parent(ex, ctx, *parent, tool_use_id.clone(), state);
                }
            }
            Effect::PersistState
            | Effect::PersistMessages { .. }
            | Effect::PersistToolResults { .. }
            | Effect::Notify { .. } => {}
        }
    }
    (activity, events)
}

/// Streams the model's text to front ends.
struct Deltas {
    session: beckon_core::SessionId,
    live: tokio::sync::broadcast::Sender<TextDelta>,
}

impl TextSink for Deltas {
    fn text(&self, delta: &str) {
        let _ = self.live.send(TextDelta { session_id: self.session, text: delta.to_owned() });
    }
}

fn request_llm(ex: Arc<Executor>, ctx: SessionContext, history: Arc<Vec<Message>>, attempt: u32) -> Activity {
    Box::pin(async move {
        let failed = |message: String, retryable: bool, retry_after_ms: Option<u64>| Event::LlmError {
            message,
            retryable,
            retry_after_ms,
            at_ms: ex.clock.now_ms(),
        };
        let found = ex.providers().for_agent(&ctx.agent.definition, ctx.agent.script.as_ref());
        let (provider, model) = match found {
            Ok(found) => found,
            Err(reason) => {
                return Some(failed(
                    format!("The agent {} cannot run: {reason}.", ctx.agent.definition.name),
                    false,
                    None,
                ));
            }
        };
        let session = ctx.id;
        let turns = llm::turns(&history);
        drop(history);
        let limits = ctx.agent.definition.limits;
        if llm::replies_since_person(&turns) >= limits.max_turns as usize {
            return Some(failed(
                format!(
                    "The agent {} stopped after {} model turns since the last message, its limit (max_turns in \
                     its file); send a message to let it go on.",
                    ctx.agent.definition.name, limits.max_turns
                ),
                false,
                None,
            ));
        }
        let request = LlmRequest {
            model,
            system: ctx.agent.definition.system_prompt.clone(),
            turns,
            tools: tool_specs(&ex, &ctx),
            max_tokens: MAX_TOKENS,
        };
        let sink = Deltas { session, live: ex.text.clone() };
        tracing::debug!(%session, attempt, "asking the model");
        Some(match provider.complete(&request, &sink).await {
            Ok(reply) if reply.tool_calls.len() > limits.max_tool_calls_per_turn as usize => failed(
                format!(
                    "The model asked for {} tool calls in one turn; the agent {} allows {} \
                     (max_tool_calls_per_turn in its file), so none of them ran.",
                    reply.tool_calls.len(),
                    ctx.agent.definition.name,
                    limits.max_tool_calls_per_turn
                ),
                false,
                None,
            ),
            Ok(reply) => Event::LlmResponse { text: reply.text, tool_calls: reply.tool_calls },
            Err(err) => {
                tracing::warn!(%session, attempt, kind = ?err.kind, message = %err.message, "model request failed");
                let retry_after_ms = err.retry_after.map(|d| d.as_millis() as u64);
                let retryable = err.retryable() && err.kind != ProviderErrorKind::Protocol;
                failed(err.message, retryable, retry_after_ms)
            }
        })
    })
}

/// The tools an agent is offered.
fn tool_specs(ex: &Executor, ctx: &SessionContext) -> Vec<ToolSpec> {
    let definition = &ctx.agent.definition;
    let mut specs = Vec::new();
    if definition.questions {
        specs.push(tools::ask_user_question_spec());
    }
    for name in &definition.tools {
        match name.as_str() {
            "read_file" => specs.push(tools::read_file_spec()),
            "write_file" => specs.push(tools::write_file_spec()),
            "list_files" => specs.push(tools::list_files_spec()),
            "spawn_agent" => {
                let others: Vec<(String, String)> = ex
                    .agents
                    .infos()
                    .into_iter()
                    .filter(|info| info.name != definition.name)
                    .map(|info| (info.name, info.description))
                    .collect();
                specs.push(tools::spawn_agent_spec(&others));
            }
            _ => {}
        }
    }
    specs
}

enum Run {
    Now(Event),
    Later(Activity),
}

fn execute(ex: &Arc<Executor>, ctx: &SessionContext, call: &ToolCall) -> Run {
    if let Some(event) = decided(ctx, call, ex.clock.now_ms()) {
        return Run::Now(event);
    }
    match call.name.as_str() {
        "spawn_agent" => Run::Later(spawn(ex.clone(), ctx.clone(), call.clone())),
        _ => {
            Run::Later(file_tool(ctx.workspace.clone(), ctx.agent.definition.limits.max_workspace_bytes, call.clone()))
        }
    }
}

/// What a tool call comes to when deciding it needs no I/O: a question put to the person, a
/// question the model must fix, or a tool it was not offered. `None` for a call that has work
/// to do (a file, a sub-agent).
pub(super) fn decided(ctx: &SessionContext, call: &ToolCall, now_ms: i64) -> Option<Event> {
    let definition = &ctx.agent.definition;
    let offered = match call.name.as_str() {
        ASK_USER_QUESTION => definition.questions,
        other => definition.tools.iter().any(|tool| tool == other),
    };
    if !offered {
        let mut available: Vec<&str> = definition.tools.iter().map(String::as_str).collect();
        if definition.questions {
            available.insert(0, ASK_USER_QUESTION);
        }
        let text = format!(
            "There is no tool named {:?} available to you. Available tools: {}.",
            call.name,
            available.join(", ")
        );
        return Some(Event::ToolComplete { result: ToolResult::error(&call.id, text) });
    }
    (call.name == ASK_USER_QUESTION).then(|| ask(ctx, call, now_ms))
}

/// `ask_user_question`: a valid request becomes a pending question and the session stops; an
/// invalid one goes straight back to the model as an error saying what to fix.
fn ask(ctx: &SessionContext, call: &ToolCall, asked_at_ms: i64) -> Event {
    match QuestionRequest::parse(&call.input) {
        Err(problems) => Event::ToolComplete { result: ToolResult::error(&call.id, tool_error_text(&problems)) },
        Ok(request) => {
            let timeout = ctx.agent.definition.question_policy.timeout_ms;
            Event::AskUserQuestionPending {
                request_id: new_request_id(),
                tool_use_id: call.id.clone(),
                request,
                origin: ctx.origin.clone(),
                asked_at_ms,
                expires_at_ms: timeout.map(|ms| asked_at_ms.saturating_add(i64::try_from(ms).unwrap_or(i64::MAX))),
            }
        }
    }
}

fn file_tool(workspace: std::path::PathBuf, max_bytes: u64, call: ToolCall) -> Activity {
    Box::pin(async move {
        let id = call.id.clone();
        let outcome = tokio::task::spawn_blocking(move || {
            let workspace = tools::Workspace::open(&workspace).map_err(|err| err.to_string())?.limited_to(max_bytes);
            match call.name.as_str() {
                "read_file" => tools::read_file(&workspace, &call.input),
                "write_file" => tools::write_file(&workspace, &call.input),
                "list_files" => tools::list_files(&workspace, &call.input),
                other => Err(format!("There is no tool named {other:?}.")),
            }
        })
        .await;
        let result = match outcome {
            Ok(Ok(text)) => ToolResult::ok(id, text),
            Ok(Err(text)) => ToolResult::error(id, text),
            Err(err) => ToolResult::error(id, format!("The tool stopped unexpectedly: {err}")),
        };
        Some(Event::ToolComplete { result })
    })
}

/// `spawn_agent`: creates the sub-agent's session (once, even if re-run after a restart) and
/// starts it; the parent waits, with no task running, until the sub-agent reports back.
fn spawn(ex: Arc<Executor>, ctx: SessionContext, call: ToolCall) -> Activity {
    Box::pin(async move {
        let error = |text: String| Some(Event::ToolComplete { result: ToolResult::error(&call.id, text) });
        let (Some(agent_name), Some(task)) = (call.input["agent"].as_str(), call.input["task"].as_str()) else {
            return error("spawn_agent needs {\"agent\": <name>, \"task\": <text>}.".into());
        };
        if let Some(extra) = call.input.as_object().and_then(|o| o.keys().find(|k| *k != "agent" && *k != "task")) {
            return error(format!("spawn_agent does not take {extra:?}; give only agent and task."));
        }
        if task.trim().is_empty() {
            return error("spawn_agent needs a task to hand over.".into());
        }
        let Some(agent) = ex.agents.get(agent_name) else {
            return error(format!("There is no agent named {agent_name:?}. Available: {}.", ex.agents.names()));
        };
        if agent.definition.name == ctx.agent.definition.name {
            return error("An agent cannot spawn itself.".into());
        }
        if ctx.depth + 1 >= MAX_SPAWN_DEPTH {
            return error(format!("Sub-agents may nest at most {MAX_SPAWN_DEPTH} deep; do this task yourself."));
        }
        let key = spawn_key(ctx.id, &call.id);
        let (name, lookup_key) = (agent.definition.name.clone(), key.clone());
        let existing = match ex.db.call(move |store| store.read().session_by_external_key(&name, &lookup_key)).await {
            Ok(existing) => existing,
            Err(err) => return error(format!("Starting the sub-agent failed: {err}")),
        };
        if let Some(child) = existing {
            // Re-run after a restart: the sub-agent exists; if it has finished, report now.
            return match child.state {
                State::Completed | State::Failed { .. } | State::Cancelled => Some(Event::ToolComplete {
                    result: child_result(&ex, &call.id, &agent.definition.name, child.id, &child.state).await,
                }),
                _ => None,
            };
        }
        let child = new_session_id();
        let session = NewSession {
            id: child,
            agent: agent.definition.name.clone(),
            origin: SessionOrigin::Subagent,
            parent: Some(ctx.id),
            external_key: Some(key),
            title: task.to_owned(),
            state: State::Idle,
            payload: None,
            at_ms: ex.clock.now_ms(),
        };
        if let Err(err) = ex.db.write(move |tx| tx.start_session(&session)).await {
            return error(format!("Starting the sub-agent failed: {err}"));
        }
        let task = task.to_owned();
        let ex2 = ex.clone();
        tokio::spawn(async move {
            if let Err(err) = deliver(&ex2, child, Event::UserMessage { text: task }, None).await {
                tracing::warn!(session = %child, %err, "sub-agent did not start");
            }
        });
        None
    })
}

/// The result a finished sub-agent gives its parent: its last words, or why it stopped.
async fn child_result(
    ex: &Executor,
    tool_use_id: &str,
    agent: &str,
    child: beckon_core::SessionId,
    state: &State,
) -> ToolResult {
    match state {
        State::Completed => {
            let last = ex.db.call(move |store| store.read().timeline(child)).await.ok().and_then(|timeline| {
                timeline.into_iter().rev().find_map(|entry| match entry.message {
                    beckon_core::conversation::Message::Assistant { text } if !text.trim().is_empty() => Some(text),
                    _ => None,
                })
            });
            ToolResult::ok(tool_use_id, last.unwrap_or_else(|| format!("The agent {agent} finished without a reply.")))
        }
        State::Failed { reason } => ToolResult::error(tool_use_id, format!("The agent {agent} failed: {reason}")),
        _ => ToolResult::error(tool_use_id, format!("The agent {agent} was cancelled before it finished.")),
    }
}

fn report_to_parent(
    ex: &Arc<Executor>,
    ctx: &SessionContext,
    parent: beckon_core::SessionId,
    tool_use_id: String,
    state: &State,
) {
    let (ex, state, agent, child) = (ex.clone(), state.clone(), ctx.agent.definition.name.clone(), ctx.id);
    tokio::spawn(async move {
        let result = child_result(&ex, &tool_use_id, &agent, child, &state).await;
        if let Err(err) = deliver(&ex, parent, Event::ToolComplete { result }, None).await {
            // A cancelled parent no longer waits; anything else is worth a look.
            tracing::debug!(%parent, %child, %err, "sub-agent result not taken");
        }
    });
}

fn cancel_children(ex: &Arc<Executor>, session: beckon_core::SessionId) {
    let ex = ex.clone();
    tokio::spawn(async move {
        let Ok(children) = ex.db.call(move |store| store.read().children(session)).await else { return };
        for child in children {
            use beckon_core::conversation::SessionStatus;
            if matches!(child.status, SessionStatus::Running | SessionStatus::WaitingForInput) {
                let reason = Some("its parent session was cancelled".to_owned());
                if let Err(err) = deliver(&ex, child.id, Event::UserCancel { reason }, None).await {
                    tracing::debug!(child = %child.id, %err, "sub-agent not cancelled");
                }
            }
        }
    });
}

/// Effects a session's committed state still owes when no task performs them (after a
/// restart, at creation, or when a task starts for an event).
pub(super) fn owed(state: &State) -> Vec<Effect> {
    match state {
        State::LlmRequesting { attempt } => vec![Effect::RequestLlm { attempt: *attempt }],
        State::LlmBackoff { attempt, retry_at_ms, .. } => {
            vec![Effect::ScheduleTimer { timer: Timer::LlmRetry { attempt: *attempt }, at_ms: *retry_at_ms }]
        }
        // The running call never finished (its result would have moved the state on).
        State::ToolExecuting { current, .. } => vec![Effect::ExecuteTool { call: current.clone() }],
        State::Idle
        | State::AwaitingUserResponse { .. }
        | State::Completed
        | State::Failed { .. }
        | State::Cancelled => Vec::new(),
    }
}

/// Performs what a session's committed state still owes: after a restart, or for a session
/// created with its first turn already committed.
pub(crate) fn recover(ex: &Arc<Executor>, session: beckon_core::SessionId, state: &State, known: Option<Preread>) {
    if !owed(state).is_empty() {
        start_or_send(ex, session, None, known);
    }
}
