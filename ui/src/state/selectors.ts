import type { RequestId } from "../bindings/RequestId";
import type { SessionId } from "../bindings/SessionId";
import type { SessionSummary } from "../bindings/SessionSummary";
import type { TimelineEntry } from "../bindings/TimelineEntry";
import type { AppState, QuestionInfo } from "./types";

const EMPTY: TimelineEntry[] = [];

function byAge(a: QuestionInfo, b: QuestionInfo): number {
  return (a.created_at_ms ?? 0) - (b.created_at_ms ?? 0) || a.id.localeCompare(b.id);
}

function sortedQuestions(state: AppState, ids: Iterable<RequestId>): QuestionInfo[] {
  const questions: QuestionInfo[] = [];
  for (const id of ids) {
    const question = state.questions[id];
    if (question !== undefined) questions.push(question);
  }
  return questions.sort(byAge);
}

let lastPending: { questions: AppState["questions"]; pending: AppState["pending"]; list: QuestionInfo[] } | null = null;

/**
 * The pending questions, oldest first. Sorted again only when the questions or the pending set
 * change: the sidebar's count and figures read it on every change of state, and with thousands
 * waiting a sort each time is what the window would spend its time on. The list is shared by
 * every caller: read it, never change it.
 */
export function pendingQuestions(state: AppState): QuestionInfo[] {
  if (lastPending && lastPending.questions === state.questions && lastPending.pending === state.pending) return lastPending.list;
  const list = sortedQuestions(state, Object.keys(state.pending));
  lastPending = { questions: state.questions, pending: state.pending, list };
  return list;
}

/**
 * What the inbox shows: the pending questions plus those resolved while it was open (read-only,
 * so a card does not vanish under the pointer), oldest first.
 */
export function inboxQuestions(state: AppState): QuestionInfo[] {
  if (state.recentlyResolved.length === 0) return pendingQuestions(state);
  return sortedQuestions(state, new Set<RequestId>([...Object.keys(state.pending), ...state.recentlyResolved]));
}

/** Top-level sessions for the sidebar, newest first. */
export function topLevelSessions(state: AppState): SessionSummary[] {
  return Object.values(state.sessions)
    .filter((session) => session.parent === null)
    .sort((a, b) => b.created_at_ms - a.created_at_ms || b.id.localeCompare(a.id));
}

/** A session's committed timeline. */
export function timelineOf(state: AppState, sessionId: SessionId): TimelineEntry[] {
  return state.timelines[sessionId] ?? EMPTY;
}

/**
 * True once the agent continued after the question: a `session_resumed` event said so, or the
 * timeline holds the result of the question's tool call (which is how history shows it).
 */
export function isResumed(state: AppState, question: QuestionInfo): boolean {
  if (state.resumed[question.id]) return true;
  if (question.tool_use_id === null) return false;
  return timelineOf(state, question.session_id).some(
    (entry) => entry.message.kind === "tool_result" && entry.message.tool_use_id === question.tool_use_id,
  );
}

/** Whether `sessionId` is `ancestorId` or one of its sub-agents (at any depth). */
function descendsFrom(state: AppState, sessionId: SessionId, ancestorId: SessionId): boolean {
  let current: SessionId | null = sessionId;
  for (let depth = 0; current !== null && depth < 32; depth += 1) {
    if (current === ancestorId) return true;
    current = state.sessions[current]?.parent ?? null;
  }
  return false;
}

/** The oldest pending question of a session or of its sub-agents. */
export function pendingQuestionFor(state: AppState, sessionId: SessionId): QuestionInfo | undefined {
  return pendingQuestions(state).find((question) => descendsFrom(state, question.session_id, sessionId));
}
