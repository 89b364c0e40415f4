import type { LiveEvent } from "../bindings/LiveEvent";
import type { RequestId } from "../bindings/RequestId";
import type { SessionId } from "../bindings/SessionId";
import type { SessionSummary } from "../bindings/SessionSummary";
import type { SessionView } from "../bindings/SessionView";
import type { TimelineEntry } from "../bindings/TimelineEntry";
import type { WindowSnapshot } from "../bindings/WindowSnapshot";
import type { TeamState } from "../bindings/TeamState";
import { fromInboxEntry, fromPending, fromRecord, fromResolution, fromTimelineMessage, summaryOf } from "./convert";
import { mergeQuestion, sameQuestion } from "./questions";
import { mergeEntries } from "./timeline";
import type { Action, AppState, QuestionInfo } from "./types";

function without<K extends string, V>(record: Record<K, V>, key: K): Record<K, V> {
  if (!(key in record)) return record;
  const copy = { ...record };
  delete copy[key];
  return copy;
}

function upsertQuestion(state: AppState, incoming: QuestionInfo): AppState {
  if (state.deleted[incoming.session_id]) return state;
  const known = state.questions[incoming.id];
  const merged = mergeQuestion(known, incoming);
  const questions = known && sameQuestion(known, merged) ? state.questions : { ...state.questions, [merged.id]: merged };
  let { pending, recentlyResolved } = state;
  if (merged.status === "pending") {
    if (!pending[merged.id]) pending = { ...pending, [merged.id]: true };
  } else if (pending[merged.id]) {
    pending = without(pending, merged.id);
    recentlyResolved = [...recentlyResolved, merged.id];
  }
  if (questions === state.questions && pending === state.pending) return state;
  return { ...state, questions, pending, recentlyResolved };
}

/** `upsertQuestion` for many at once, copying the maps once (a snapshot can hold thousands). */
function upsertQuestions(state: AppState, incoming: readonly QuestionInfo[]): AppState {
  let questions = state.questions;
  let pending = state.pending;
  let recentlyResolved = state.recentlyResolved;
  for (const question of incoming) {
    if (state.deleted[question.session_id]) continue;
    const known = questions[question.id];
    const merged = mergeQuestion(known, question);
    if (!(known && sameQuestion(known, merged))) {
      if (questions === state.questions) questions = { ...questions };
      questions[merged.id] = merged;
    }
    if (merged.status === "pending") {
      if (!pending[merged.id]) {
        if (pending === state.pending) pending = { ...pending };
        pending[merged.id] = true;
      }
    } else if (pending[merged.id]) {
      if (pending === state.pending) pending = { ...pending };
      delete pending[merged.id];
      recentlyResolved = [...recentlyResolved, merged.id];
    }
  }
  if (questions === state.questions && pending === state.pending) return state;
  return { ...state, questions, pending, recentlyResolved };
}

function upsertSession(state: AppState, summary: SessionSummary): AppState {
  if (state.deleted[summary.id]) return state;
  const known = state.sessions[summary.id];
  // Events and snapshots can cross: keep whichever copy changed last.
  if (known && known.updated_at_ms > summary.updated_at_ms) return state;
  if (known && JSON.stringify(known) === JSON.stringify(summary)) return state;
  return { ...state, sessions: { ...state.sessions, [summary.id]: summary } };
}

function appendEntries(state: AppState, sessionId: SessionId, entries: TimelineEntry[]): AppState {
  if (state.deleted[sessionId]) return state;
  const current = state.timelines[sessionId] ?? [];
  const merged = mergeEntries(current, entries);
  let next = merged === current ? state : { ...state, timelines: { ...state.timelines, [sessionId]: merged } };
  for (const entry of entries) {
    const question = fromTimelineMessage(sessionId, entry.message, entry.at_ms);
    if (question) next = upsertQuestion(next, question);
  }
  return next;
}

function setFailure(state: AppState, sessionId: SessionId, reason: string | null): AppState {
  if (reason === null || state.failures[sessionId] === reason) return state;
  return { ...state, failures: { ...state.failures, [sessionId]: reason } };
}

function clearDraft(state: AppState, sessionId: SessionId): AppState {
  return sessionId in state.drafts ? { ...state, drafts: without(state.drafts, sessionId) } : state;
}

function removeSession(state: AppState, sessionId: SessionId): AppState {
  const doomed = new Set<RequestId>(
    Object.values(state.questions)
      .filter((question) => question.session_id === sessionId)
      .map((question) => question.id),
  );
  const keep = <V>(record: Record<RequestId, V>) =>
    Object.fromEntries(Object.entries(record).filter(([id]) => !doomed.has(id))) as Record<RequestId, V>;
  return {
    ...state,
    sessions: without(state.sessions, sessionId),
    timelines: without(state.timelines, sessionId),
    loaded: without(state.loaded, sessionId),
    drafts: without(state.drafts, sessionId),
    failures: without(state.failures, sessionId),
    deleted: { ...state.deleted, [sessionId]: true },
    questions: keep(state.questions),
    pending: keep(state.pending),
    resumed: keep(state.resumed),
    recentlyResolved: state.recentlyResolved.filter((id) => !doomed.has(id)),
  };
}

function applyLive(state: AppState, event: LiveEvent): AppState {
  switch (event.kind) {
    case "session_started":
      return upsertSession(state, {
        id: event.session_id,
        agent: event.agent,
        origin: event.origin,
        parent: event.parent,
        title: event.title,
        status: event.status,
        created_at_ms: state.sessions[event.session_id]?.created_at_ms ?? event.at_ms,
        updated_at_ms: event.at_ms,
      });
    case "session_status": {
      const known = state.sessions[event.session_id];
      // A snapshot fetched after this change already shows it (or a later one).
      const stale = !known || event.at_ms < known.updated_at_ms;
      let next = stale ? state : upsertSession(state, { ...known, status: event.status, updated_at_ms: event.at_ms });
      next = setFailure(next, event.session_id, event.status === "failed" ? event.reason : null);
      return event.status === "running" ? next : clearDraft(next, event.session_id);
    }
    case "message_appended": {
      const next = appendEntries(state, event.session_id, [event.entry]);
      // The committed text replaces the streamed draft in the same render.
      return event.entry.message.kind === "assistant" ? clearDraft(next, event.session_id) : next;
    }
    case "question_pending": {
      const next = upsertQuestion(state, fromPending(event.question));
      return next === state ? state : { ...next, questionEpoch: next.questionEpoch + 1 };
    }
    case "question_resolved": {
      // The event carries the whole question; only events written by an older Beckon lack it,
      // and then what the window already knows of the question fills in the rest.
      const incoming = event.question
        ? fromRecord(event.question)
        : fromResolution({
            id: event.request_id,
            session_id: event.session_id,
            status: event.status,
            outcome: event.outcome,
            answered_via: event.answered_via,
            resolved_at_ms: event.at_ms,
          });
      const next = upsertQuestion(state, incoming);
      return { ...next, questionEpoch: next.questionEpoch + 1 };
    }
    case "session_resumed":
      return state.resumed[event.request_id] ? state : { ...state, resumed: { ...state.resumed, [event.request_id]: true } };
    case "session_deleted":
      return removeSession(state, event.session_id);
  }
}

function applySessionView(state: AppState, view: SessionView): AppState {
  const id = view.session.id;
  if (state.deleted[id]) return state;
  let next = upsertSession(state, summaryOf(view.session));
  if (view.session.state.state === "failed") next = setFailure(next, id, view.session.state.reason);
  next = appendEntries(next, id, view.timeline);
  for (const record of view.questions) next = upsertQuestion(next, fromRecord(record));
  if (view.pending) next = upsertQuestion(next, fromRecord(view.pending));
  return next.loaded[id] ? next : { ...next, loaded: { ...next.loaded, [id]: true } };
}

/** The window's state machine. Pure; applying an event twice, or one already in a snapshot, is harmless. */
/**
 * What waits in the team inboxes the app is connected to, marked with each inbox's name. A team
 * question no longer waiting there (answered elsewhere, or its inbox signed out or removed)
 * leaves the inbox, unless the window saw how it ended.
 */
function applyTeams(state: AppState, teams: TeamState): AppState {
  const waiting = new Set(teams.waiting.map(({ entry }) => entry.id));
  let next: AppState = { ...state, teamInboxes: teams.inboxes };
  const gone = Object.keys(next.pending).filter((id) => next.questions[id]?.inbox && !waiting.has(id));
  if (gone.length > 0) {
    const pending = { ...next.pending };
    const questions = { ...next.questions };
    for (const id of gone) {
      delete pending[id];
      delete questions[id];
    }
    next = { ...next, pending, questions };
  }
  return upsertQuestions(
    next,
    teams.waiting.map(({ inbox, entry }) => ({ ...fromInboxEntry(entry), inbox })),
  );
}

/** The start-up snapshot's inbox, sessions and figures, merged into what the window has. */
function applySnapshot(state: AppState, snapshot: WindowSnapshot): AppState {
  let next: AppState = {
    ...state,
    lastSeq: Math.max(state.lastSeq, snapshot.last_seq),
    sessionsNext: snapshot.sessions.next,
    metrics: snapshot.metrics,
  };
  for (const summary of snapshot.sessions.sessions) next = upsertSession(next, summary);
  return upsertQuestions(next, snapshot.pending.map(fromInboxEntry));
}

export function reducer(state: AppState, action: Action): AppState {
  switch (action.type) {
    case "bootstrap": {
      const { data } = action;
      return applySnapshot(
        {
          ...state,
          agents: data.agents,
          agentProblems: data.agent_problems,
          defaultAgent: data.default_agent,
          settings: data.settings,
          dataDir: data.data_dir,
          gateway: { url: data.gateway_url, problem: data.gateway_problem },
        },
        data,
      );
    }
    case "team_bootstrap":
      return applySnapshot({ ...state, person: action.person }, action.data);
    case "team_inboxes":
      return applyTeams(state, action.state);
    case "live":
      if (action.event.seq <= state.lastSeq) return state;
      return { ...applyLive(state, action.event), lastSeq: action.event.seq };
    case "text_delta":
      if (state.deleted[action.sessionId]) return state;
      return { ...state, drafts: { ...state.drafts, [action.sessionId]: (state.drafts[action.sessionId] ?? "") + action.text } };
    case "session_loaded":
      return applySessionView(state, action.view);
    case "question_loaded":
      return upsertQuestion(state, fromRecord(action.question));
    case "sessions_page": {
      let next: AppState = { ...state, sessionsNext: action.page.next };
      for (const summary of action.page.sessions) next = upsertSession(next, summary);
      return next;
    }
    case "resolved":
      return upsertQuestion(state, fromResolution(action.question));
    case "metrics":
      return { ...state, metrics: action.metrics };
    case "settings":
      return { ...state, settings: action.settings };
    case "inbox_left":
      return state.recentlyResolved.length === 0 ? state : { ...state, recentlyResolved: [] };
  }
}
