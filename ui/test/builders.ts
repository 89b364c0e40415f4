import type { ChoiceQuestion } from "../src/bindings/ChoiceQuestion";
import type { FieldSchema } from "../src/bindings/FieldSchema";
import type { FreeFormQuestion } from "../src/bindings/FreeFormQuestion";
import type { Message } from "../src/bindings/Message";
import type { PendingQuestion } from "../src/bindings/PendingQuestion";
import type { QuestionItem } from "../src/bindings/QuestionItem";
import type { SessionSummary } from "../src/bindings/SessionSummary";
import type { TimelineEntry } from "../src/bindings/TimelineEntry";
import type { InboxEntry } from "../src/bindings/InboxEntry";
import type { QuestionRecord } from "../src/bindings/QuestionRecord";
import { lineOf } from "../src/state/triage";
import type { LoadedQuestion } from "../src/state/types";

/** The fixed "now" of component tests. */
export const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
export const MINUTE = 60_000;

export function choice(question: string, labels: string[], multiSelect = false, header = "Pick"): ChoiceQuestion {
  return { question, header, multiSelect, options: labels.map((label) => ({ label, description: `About ${label}` })) };
}

export function freeForm(question: string, schema: FieldSchema, header = "Value"): FreeFormQuestion {
  return { question, header, schema };
}

export function questionInfo(items: QuestionItem[], fields: Partial<LoadedQuestion> = {}): LoadedQuestion {
  return {
    id: "q-1",
    session_id: "s-1",
    tool_use_id: "toolu_1",
    agent: "deploy-bot",
    origin: ["deploy-bot"],
    request: { questions: items },
    line: null,
    status: "pending",
    outcome: null,
    answered_via: null,
    created_at_ms: NOW - 3 * MINUTE,
    resolved_at_ms: null,
    expires_at_ms: null,
    ...fields,
  };
}

export function pending(id: string, createdAt: number, fields: Partial<PendingQuestion> = {}): PendingQuestion {
  return {
    id,
    session_id: `s-${id}`,
    agent: "research",
    origin: ["research"],
    request: { questions: [choice(`Question ${id}?`, ["Yes", "No"])] },
    created_at_ms: createdAt,
    expires_at_ms: null,
    ...fields,
  };
}

/** A pending question as the start-up snapshot lists it: by its line. */
export function inboxEntry(question: PendingQuestion): InboxEntry {
  const { request, ...rest } = question;
  return { ...rest, line: lineOf(request) };
}

/** A pending question as `get_question` returns it whole. */
export function recordOf(question: PendingQuestion): QuestionRecord {
  return {
    ...question,
    tool_use_id: `toolu_${question.id}`,
    status: "pending",
    outcome: null,
    answered_via: null,
    callback_url: null,
    resolved_at_ms: null,
    expiry_policy: null,
  };
}

export function summary(id: string, fields: Partial<SessionSummary> = {}): SessionSummary {
  return { id, agent: "assistant", origin: "chat", parent: null, title: `Session ${id}`, status: "running", created_at_ms: NOW - 10 * MINUTE, updated_at_ms: NOW - 10 * MINUTE, ...fields };
}

export function entry(position: number, message: Message, at = NOW): TimelineEntry {
  return { position, message, at_ms: at };
}

/** Markup an agent might send to try to inject HTML. */
export const HOSTILE = "<img src=x onerror=alert(1)>";
