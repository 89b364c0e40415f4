import type { JsonValue } from "../bindings/serde_json/JsonValue";
import type { RequestId } from "../bindings/RequestId";
import type { TimelineEntry } from "../bindings/TimelineEntry";

/** One thing the session view draws, keyed so that it keeps its identity as entries arrive. */
export type TimelineRow =
  | { kind: "user"; key: string; text: string; atMs: number }
  | { kind: "assistant"; key: string; text: string; atMs: number }
  | {
      kind: "tool";
      key: string;
      name: string;
      input: JsonValue;
      result: { content: string; isError: boolean } | null;
    }
  | { kind: "orphan_result"; key: string; content: string; isError: boolean }
  | { kind: "question"; key: string; requestId: RequestId };

/**
 * Turns a timeline into rows. A question is drawn as one card where it was asked: its
 * `ask_user_question` tool call, its `answer` entry and its tool result are folded into the
 * card, not drawn again. Other tool calls become one collapsed row with their result.
 */
export function buildRows(entries: readonly TimelineEntry[]): TimelineRow[] {
  const questionCalls = new Set<string>();
  const results = new Map<string, { content: string; isError: boolean }>();
  const calls = new Set<string>();
  for (const { message } of entries) {
    if (message.kind === "question") questionCalls.add(message.tool_use_id);
    if (message.kind === "tool_use") calls.add(message.id);
    if (message.kind === "tool_result") results.set(message.tool_use_id, { content: message.content, isError: message.is_error });
  }
  const rows: TimelineRow[] = [];
  for (const { position, message, at_ms: atMs } of entries) {
    const key = `p${position}`;
    switch (message.kind) {
      case "user":
      case "assistant":
        rows.push({ kind: message.kind, key, text: message.text, atMs });
        break;
      case "tool_use":
        if (!questionCalls.has(message.id)) {
          rows.push({ kind: "tool", key, name: message.name, input: message.input, result: results.get(message.id) ?? null });
        }
        break;
      case "tool_result":
        if (!calls.has(message.tool_use_id) && !questionCalls.has(message.tool_use_id)) {
          rows.push({ kind: "orphan_result", key, content: message.content, isError: message.is_error });
        }
        break;
      case "question":
        rows.push({ kind: "question", key: `q:${message.request_id}`, requestId: message.request_id });
        break;
      case "answer":
        break;
    }
  }
  return rows;
}
