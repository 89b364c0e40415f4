import type { LoadedQuestion, QuestionInfo } from "./types";

/** Whether the question's request is known (not only its inbox line). */
export function isLoaded(question: QuestionInfo): question is LoadedQuestion {
  return question.request !== null;
}

/**
 * Merges what a source says about a question into what is known. A resolution is final: a
 * pending snapshot cannot undo it, and the first resolution seen wins (the backend allows only
 * one). Fields missing on one side are filled from the other.
 */
export function mergeQuestion(known: QuestionInfo | undefined, incoming: QuestionInfo): QuestionInfo {
  if (!known) return incoming;
  const base = known.status !== "pending" || incoming.status === "pending" ? known : incoming;
  const other = base === known ? incoming : known;
  const otherResolved = other.status !== "pending";
  return {
    id: known.id,
    session_id: known.session_id,
    tool_use_id: known.tool_use_id ?? incoming.tool_use_id,
    agent: known.agent || incoming.agent,
    origin: known.origin.length > 0 ? known.origin : incoming.origin,
    request: known.request ?? incoming.request,
    line: known.line ?? incoming.line,
    status: base.status,
    outcome: base.outcome ?? (otherResolved ? other.outcome : null),
    answered_via: base.answered_via ?? (otherResolved ? other.answered_via : null),
    answered_by: base.answered_by ?? (otherResolved ? other.answered_by : null) ?? null,
    asked_by: known.asked_by ?? incoming.asked_by ?? null,
    resolved_at_ms: base.resolved_at_ms ?? (otherResolved ? other.resolved_at_ms : null),
    created_at_ms: known.created_at_ms ?? incoming.created_at_ms,
    expires_at_ms: known.expires_at_ms ?? incoming.expires_at_ms,
    inbox: known.inbox ?? incoming.inbox ?? null,
  };
}

/** True when two records of a question would render the same (fields compared by identity). */
export function sameQuestion(a: QuestionInfo, b: QuestionInfo): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof QuestionInfo>;
  return [...keys].every((key) => (a[key] ?? null) === (b[key] ?? null));
}
