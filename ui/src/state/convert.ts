import type { InboxEntry } from "../bindings/InboxEntry";
import type { PendingQuestion } from "../bindings/PendingQuestion";
import type { QuestionRecord } from "../bindings/QuestionRecord";
import type { ResolvedQuestion } from "../bindings/ResolvedQuestion";
import type { SessionId } from "../bindings/SessionId";
import type { SessionRecord } from "../bindings/SessionRecord";
import type { SessionSummary } from "../bindings/SessionSummary";
import type { Message } from "../bindings/Message";
import type { QuestionInfo } from "./types";

/** An inbox line from the start-up snapshot: the question as the list shows it, its request to be fetched. */
export function fromInboxEntry(entry: InboxEntry): QuestionInfo {
  return {
    id: entry.id,
    session_id: entry.session_id,
    tool_use_id: null,
    agent: entry.agent,
    origin: entry.origin,
    request: null,
    line: entry.line,
    status: "pending",
    outcome: null,
    answered_via: null,
    created_at_ms: entry.created_at_ms,
    resolved_at_ms: null,
    expires_at_ms: entry.expires_at_ms,
  };
}

/** A pending-list entry as a question record. */
export function fromPending(question: PendingQuestion): QuestionInfo {
  return {
    id: question.id,
    session_id: question.session_id,
    tool_use_id: null,
    agent: question.agent,
    origin: question.origin,
    request: question.request,
    line: null,
    status: "pending",
    outcome: null,
    answered_via: null,
    created_at_ms: question.created_at_ms,
    resolved_at_ms: null,
    expires_at_ms: question.expires_at_ms,
  };
}

/** A stored question as the window keeps it. */
export function fromRecord(record: QuestionRecord): QuestionInfo {
  return {
    id: record.id,
    session_id: record.session_id,
    tool_use_id: record.tool_use_id,
    agent: record.agent,
    origin: record.origin,
    request: record.request,
    line: null,
    status: record.status,
    outcome: record.outcome,
    answered_via: record.answered_via,
    answered_by: record.answered_by ?? null,
    asked_by: record.asked_by ?? null,
    only_for: record.only_for ?? null,
    created_at_ms: record.created_at_ms,
    resolved_at_ms: record.resolved_at_ms,
    expires_at_ms: record.expires_at_ms,
  };
}

/**
 * What a `question` or `answer` timeline entry says about its question; `null` for other
 * entries. A question entry alone means it was asked (pending until told otherwise).
 */
export function fromTimelineMessage(sessionId: SessionId, message: Message, atMs: number): QuestionInfo | null {
  if (message.kind === "question") {
    return {
      id: message.request_id,
      session_id: sessionId,
      tool_use_id: message.tool_use_id,
      agent: message.origin[message.origin.length - 1] ?? "",
      origin: message.origin,
      request: message.request,
      line: null,
      status: "pending",
      outcome: null,
      answered_via: null,
      created_at_ms: atMs,
      resolved_at_ms: null,
      expires_at_ms: null,
    };
  }
  if (message.kind === "answer") {
    return {
      id: message.request_id,
      session_id: sessionId,
      tool_use_id: null,
      agent: "",
      origin: [],
      request: null,
      line: null,
      status: message.outcome.outcome,
      outcome: message.outcome,
      answered_via: null,
      created_at_ms: null,
      resolved_at_ms: atMs,
      expires_at_ms: null,
    };
  }
  return null;
}

/** A resolution (from a receipt, a lost race or an event) as a partial question record. */
export function fromResolution(resolved: ResolvedQuestion): QuestionInfo {
  return {
    id: resolved.id,
    session_id: resolved.session_id,
    tool_use_id: null,
    agent: "",
    origin: [],
    request: null,
    line: null,
    status: resolved.status,
    outcome: resolved.outcome,
    answered_via: resolved.answered_via,
    created_at_ms: null,
    resolved_at_ms: resolved.resolved_at_ms,
    expires_at_ms: null,
  };
}

/** A stored session as a list entry. */
export function summaryOf(record: SessionRecord): SessionSummary {
  return {
    id: record.id,
    agent: record.agent,
    origin: record.origin,
    parent: record.parent,
    title: record.title,
    status: record.status,
    created_at_ms: record.created_at_ms,
    updated_at_ms: record.updated_at_ms,
  };
}
