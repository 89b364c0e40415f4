import type { Answer } from "../../bindings/Answer";
import type { FieldSchema } from "../../bindings/FieldSchema";
import type { QuestionItem } from "../../bindings/QuestionItem";
import type { JsonValue } from "../../bindings/serde_json/JsonValue";
import { isChoice } from "./items";

/** What the person has entered for a choice item. */
export interface ChoiceDraft {
  kind: "choice";
  /** Chosen labels, in the order chosen. */
  selected: string[];
  /** Whether "Other" is chosen. */
  otherOn: boolean;
  other: string;
  comment: string;
}

/** What the person has entered for a free-form item (text as typed; booleans as a flag). */
export interface FreeDraft {
  kind: "free";
  text: string;
  flag: boolean;
  comment: string;
}

export type ItemDraft = ChoiceDraft | FreeDraft;

function defaultText(schema: FieldSchema): string {
  const value = schema.default;
  if (value === undefined || value === null || typeof value === "object") return "";
  return String(value);
}

/** An empty draft for an item (a free-form item starts from its schema's default). */
export function emptyDraft(item: QuestionItem): ItemDraft {
  if (isChoice(item)) return { kind: "choice", selected: [], otherOn: false, other: "", comment: "" };
  return { kind: "free", text: defaultText(item.schema), flag: item.schema.default === true, comment: "" };
}

/**
 * Picks option `index` (0-based) of a choice item; `index === options.length` means "Other".
 * Single-select replaces the choice; multi-select toggles it.
 */
export function pickOption(draft: ChoiceDraft, labels: readonly string[], index: number, multi: boolean): ChoiceDraft {
  if (index === labels.length) {
    return multi ? { ...draft, otherOn: !draft.otherOn } : { ...draft, selected: [], otherOn: true };
  }
  const label = labels[index];
  if (label === undefined) return draft;
  if (!multi) return { ...draft, selected: [label], otherOn: false };
  const selected = draft.selected.includes(label)
    ? draft.selected.filter((chosen) => chosen !== label)
    : [...draft.selected, label];
  return { ...draft, selected };
}

/** Local problems found before sending, by item index. */
export type LocalProblems = Record<number, string>;

/** A `datetime-local` value as an RFC 3339 timestamp with the local offset. */
export function localDateTimeToRfc3339(text: string): string {
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) return text;
  const offset = -date.getTimezoneOffset();
  const sign = offset >= 0 ? "+" : "-";
  const pad = (n: number) => String(Math.floor(Math.abs(n))).padStart(2, "0");
  const local = `${text.length === 16 ? `${text}:00` : text}`;
  return `${local}${sign}${pad(offset / 60)}:${pad(offset % 60)}`;
}

function freeValue(schema: FieldSchema, draft: FreeDraft): { value: JsonValue } | { problem: string } {
  if (schema.type === "boolean") return { value: draft.flag };
  const text = draft.text.trim();
  if (schema.enum) return text === "" ? { problem: "Choose one of the options." } : { value: text };
  if (schema.type === "number" || schema.type === "integer") {
    if (text === "") return { problem: "Enter a number." };
    const number = Number(text);
    if (!Number.isFinite(number)) return { problem: "Enter a number." };
    if (schema.type === "integer" && !Number.isInteger(number)) return { problem: "Enter a whole number." };
    return { value: number };
  }
  if (schema.format === "date-time" && draft.text !== "") return { value: localDateTimeToRfc3339(draft.text) };
  return { value: draft.text };
}

function withComment(answer: Answer, comment: string): Answer {
  const trimmed = comment.trim();
  return trimmed === "" ? answer : { ...answer, comment: trimmed };
}

/**
 * Builds the `answer` payload, one `Answer` per item in order, or says what is missing. Only
 * what cannot be sent is checked here; every other rule is the backend's, and its problems
 * are shown beside the fields they name.
 */
export function buildAnswers(
  items: readonly QuestionItem[],
  drafts: readonly ItemDraft[],
): { answers: Answer[] } | { problems: LocalProblems } {
  const answers: Answer[] = [];
  const problems: LocalProblems = {};
  items.forEach((item, index) => {
    const draft = drafts[index] ?? emptyDraft(item);
    if (isChoice(item) && draft.kind === "choice") {
      const other = draft.otherOn ? draft.other.trim() : "";
      if (draft.otherOn && other === "") {
        problems[index] = "Write your answer, or pick one of the options.";
      } else if (draft.selected.length === 0 && !draft.otherOn) {
        problems[index] = item.multiSelect ? "Pick at least one option." : "Pick an option, or write your own.";
      }
      const answer: Answer = { selected: draft.selected };
      if (draft.otherOn) answer.other = other;
      answers.push(withComment(answer, draft.comment));
    } else if (!isChoice(item) && draft.kind === "free") {
      const result = freeValue(item.schema, draft);
      if ("problem" in result) problems[index] = result.problem;
      else answers.push(withComment({ value: result.value }, draft.comment));
    }
  });
  return Object.keys(problems).length > 0 ? { problems } : { answers };
}
