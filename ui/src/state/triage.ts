import type { RequestId } from "../bindings/RequestId";
import type { InboxLine } from "../bindings/InboxLine";
import type { QuestionKind } from "../bindings/QuestionKind";
import type { QuestionRequest } from "../bindings/QuestionRequest";
import type { JsonValue } from "../bindings/serde_json/JsonValue";
import { inboxQuestions } from "./selectors";
import type { AppState, QuestionInfo } from "./types";

/** What a question asks for: permission for a tool call, a choice, or a form. */
export type TriageKind = QuestionKind;

/** One inbox row: what the compact list shows and searches, derived from a question once. */
export interface TriageRow {
  id: RequestId;
  question: QuestionInfo;
  kind: TriageKind;
  agent: string;
  /** The project as the agent named it (a folder path), or "" when it named none. */
  project: string;
  /** The project's last folder name, or "" when there is none. */
  projectName: string;
  /** Approvals: the tool and its command or file; questions: header and question text. */
  summary: string;
  /** The command or file an approval is for, when it names one. */
  command: string | null;
  createdAt: number;
}

/** How the list is grouped. */
export type GroupBy = "project" | "agent" | "none";

/** How old a question must be to be listed. */
export type AgeFilter = "any" | "hour" | "day";

/** What the person narrowed the list to. */
export interface TriageFilter {
  kind: TriageKind | "all";
  /** An agent's name, or null for every agent. */
  agent: string | null;
  /** A project (as in `TriageRow.project`), or null for every project. */
  project: string | null;
  age: AgeFilter;
  search: string;
}

export const NO_FILTER: TriageFilter = { kind: "all", agent: null, project: null, age: "any", search: "" };

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The last folder name of a path: "/home/ada/src/shop/" → "shop". */
export function lastFolder(path: string): string {
  const parts = path.split(/[\\/]/).filter((part) => part !== "");
  return parts[parts.length - 1] ?? "";
}

function text(value: JsonValue | undefined): string | null {
  return typeof value === "string" && value.trim() !== "" ? value : null;
}

/** The command, file, pattern or URL an approval is for. */
export function approvalTarget(input: Record<string, JsonValue | undefined>): string | null {
  return text(input.command) ?? text(input.file_path) ?? text(input.path) ?? text(input.pattern) ?? text(input.url) ?? null;
}

/**
 * The inbox's line for a request, as the backend makes it (`QuestionRequest::inbox_line`) for the
 * start-up snapshot; used for questions the window learned of whole. The two are checked against
 * the same cases (`inboxLineCases.json`).
 */
export function lineOf(request: QuestionRequest): InboxLine {
  const items = request.questions;
  const approval = request.approval;
  const project = approval?.project ?? text(request.metadata?.project) ?? text(request.metadata?.cwd) ?? "";
  const lineText = items.map((item) => item.question).join("\n");
  if (approval) {
    const command = approvalTarget(approval.input);
    const summary = command ? `${approval.tool_name}: ${command}` : approval.tool_name;
    return { kind: "approval", project, summary, command, text: lineText };
  }
  const kind = items.some((item) => "schema" in item) ? "form" : "question";
  const first = items[0];
  const summary = [first?.header, first?.question].filter((part) => part !== undefined && part !== null && part !== "").join(" · ");
  return { kind, project, summary, command: null, text: lineText };
}

const NO_LINE: InboxLine = { kind: "question", project: "", summary: "", command: null, text: "" };

const rowCache = new WeakMap<QuestionInfo, { row: TriageRow; line: InboxLine }>();
// A few projects are shared by thousands of rows: each folder name is worked out once.
const folderNames = new Map<string, string>();

function folderName(project: string): string {
  let name = folderNames.get(project);
  if (name === undefined) {
    name = lastFolder(project);
    folderNames.set(project, name);
  }
  return name;
}

/** The row of one question; computed once per question object (questions are immutable). */
export function triageRow(question: QuestionInfo): TriageRow {
  const cached = rowCache.get(question);
  if (cached) return cached.row;
  const line = question.line ?? (question.request ? lineOf(question.request) : NO_LINE);
  const row: TriageRow = {
    id: question.id,
    question,
    kind: line.kind,
    agent: question.agent,
    project: line.project,
    projectName: folderName(line.project),
    summary: line.summary,
    command: line.command,
    createdAt: question.created_at_ms ?? 0,
  };
  rowCache.set(question, { row, line });
  return row;
}

const searchTexts = new WeakMap<TriageRow, string>();

/**
 * Everything the search box matches in a row, lower-cased; made when a search first needs it,
 * not for every row before the list's first frame.
 */
export function searchText(row: TriageRow): string {
  let text = searchTexts.get(row);
  if (text === undefined) {
    const line = rowCache.get(row.question)?.line ?? row.question.line ?? (row.question.request ? lineOf(row.question.request) : NO_LINE);
    text = [line.summary, line.text, line.command ?? "", row.question.agent, ...row.question.origin, line.project].join("\n").toLowerCase();
    searchTexts.set(row, text);
  }
  return text;
}

let lastInbox: { questions: AppState["questions"]; pending: AppState["pending"]; recent: AppState["recentlyResolved"]; rows: TriageRow[] } | null = null;

/**
 * The inbox's rows, oldest first. Recomputed only when the questions, the pending set or the
 * recently resolved list change, so streaming text or session events do not re-sort thousands.
 */
export function inboxRows(state: AppState): TriageRow[] {
  if (lastInbox && lastInbox.questions === state.questions && lastInbox.pending === state.pending && lastInbox.recent === state.recentlyResolved) {
    return lastInbox.rows;
  }
  const rows = inboxQuestions(state).map(triageRow);
  lastInbox = { questions: state.questions, pending: state.pending, recent: state.recentlyResolved, rows };
  return rows;
}

/** Whether `row` passes `filter` at time `now`. */
export function matches(row: TriageRow, filter: TriageFilter, now: number): boolean {
  if (filter.kind !== "all" && row.kind !== filter.kind) return false;
  if (filter.agent !== null && row.agent !== filter.agent) return false;
  if (filter.project !== null && row.project !== filter.project) return false;
  if (filter.age === "hour" && now - row.createdAt < HOUR_MS) return false;
  if (filter.age === "day" && now - row.createdAt < DAY_MS) return false;
  const needle = filter.search.trim().toLowerCase();
  return needle === "" || searchText(row).includes(needle);
}

/** The rows passing `filter`, in their order. */
export function filterRows(rows: readonly TriageRow[], filter: TriageFilter, now: number): TriageRow[] {
  return rows.filter((row) => matches(row, filter, now));
}

/** Whether anything narrows the list. */
export function isFiltered(filter: TriageFilter): boolean {
  return filter.kind !== "all" || filter.agent !== null || filter.project !== null || filter.age !== "any" || filter.search.trim() !== "";
}

/** The agents and projects the rows come from, sorted, for the filter menus. */
export function facets(rows: readonly TriageRow[]): { agents: string[]; projects: string[] } {
  const agents = new Set<string>();
  const projects = new Set<string>();
  for (const row of rows) {
    agents.add(row.agent);
    if (row.project !== "") projects.add(row.project);
  }
  return { agents: [...agents].sort(), projects: [...projects].sort() };
}

/** Rows sharing a project or an agent. */
export interface TriageGroup {
  key: string;
  label: string;
  rows: TriageRow[];
}

/**
 * The rows in groups, each group's rows in their given order, groups ordered by their oldest
 * row (what waited longest comes first). `none` is one group holding everything.
 */
export function groupRows(rows: readonly TriageRow[], by: GroupBy): TriageGroup[] {
  if (by === "none") return [{ key: "all", label: "All", rows: [...rows] }];
  const groups = new Map<string, TriageGroup>();
  for (const row of rows) {
    const key = by === "agent" ? row.agent : row.project;
    const label = by === "agent" ? row.agent : key === "" ? "No project" : row.projectName;
    let group = groups.get(key);
    if (!group) {
      group = { key, label, rows: [] };
      groups.set(key, group);
    }
    group.rows.push(row);
  }
  return [...groups.values()];
}

/** One line of the windowed list: a group's header or a row. */
export type ListEntry = { type: "header"; group: TriageGroup; collapsed: boolean } | { type: "row"; row: TriageRow; group: TriageGroup };

/** The lines the list draws: headers (unless ungrouped) and the rows of open groups. */
export function listEntries(groups: readonly TriageGroup[], by: GroupBy, collapsed: ReadonlySet<string>): ListEntry[] {
  const entries: ListEntry[] = [];
  for (const group of groups) {
    const closed = by !== "none" && collapsed.has(group.key);
    if (by !== "none") entries.push({ type: "header", group, collapsed: closed });
    if (!closed) for (const row of group.rows) entries.push({ type: "row", row, group });
  }
  return entries;
}

/** The ids from `anchor` to `target` (both included) in `order`; just `target` without an anchor in it. */
export function rangeBetween(order: readonly RequestId[], anchor: RequestId | null, target: RequestId): RequestId[] {
  const to = order.indexOf(target);
  if (to < 0) return [];
  const from = anchor === null ? -1 : order.indexOf(anchor);
  if (from < 0) return [target];
  const [start, end] = from <= to ? [from, to] : [to, from];
  return order.slice(start, end + 1);
}

/** The row `step` places from `current` among `order`, clamped to its ends; the first without a current one. */
export function moveFocus(order: readonly RequestId[], current: RequestId | null, step: number): RequestId | null {
  if (order.length === 0) return null;
  const at = current === null ? -1 : order.indexOf(current);
  if (at < 0) return order[step < 0 ? order.length - 1 : 0] ?? null;
  return order[Math.min(order.length - 1, Math.max(0, at + step))] ?? null;
}

/** What a triage key may act on, as seen when it was pressed. */
export interface KeyContext {
  /** The key went to a text field (input, textarea, select, contenteditable). */
  inTextField: boolean;
  /** The key went to something inside the inbox. */
  inInbox: boolean;
  /** The row the list's focus is on. */
  focusedId: RequestId | null;
  /** That row is drawn and inside the list's viewport. */
  focusedVisible: boolean;
  /** The question whose card the detail pane shows. */
  detailId: RequestId | null;
}

/**
 * Whether a key may act on the focused question: only from inside the inbox, never from a text
 * field, and only on a row that is on screen and whose card is the one shown. A key that arrives
 * any other way (typing elsewhere, a window raised by a link) answers nothing.
 */
export function keyMayAct(context: KeyContext): boolean {
  return context.inInbox && !context.inTextField && context.focusedId !== null && context.focusedVisible && context.detailId === context.focusedId;
}

/** What a batch of selected rows holds, for the confirmation and the bar. */
export interface BatchSummary {
  count: number;
  approvals: number;
  /** Every selected row is an approval (the only case "Allow once all" is offered). */
  allApprovals: boolean;
  /** The approvals' commands (or tools), in list order. */
  commands: string[];
  /** The last folder names of the distinct projects, in order of first appearance. */
  projects: string[];
}

/** Sums up the selected rows. */
export function summarise(rows: readonly TriageRow[]): BatchSummary {
  const approvals = rows.filter((row) => row.kind === "approval");
  const projects: string[] = [];
  for (const row of rows) {
    const name = row.projectName || "no project";
    if (!projects.includes(name)) projects.push(name);
  }
  return {
    count: rows.length,
    approvals: approvals.length,
    allApprovals: rows.length > 0 && approvals.length === rows.length,
    commands: approvals.map((row) => row.summary),
    projects,
  };
}

const NUMBER = new Intl.NumberFormat("en-US");

/** A number for people: 1,000. */
export function count(n: number): string {
  return NUMBER.format(n);
}
