import { describe, expect, it } from "vitest";
import { choice, freeForm, MINUTE, NOW, pending, questionInfo } from "../../test/builders";
import { snapshot, stateFrom } from "../../test/state";
import type { InboxLine } from "../bindings/InboxLine";
import type { QuestionRequest } from "../bindings/QuestionRequest";
import inboxLineCases from "./inboxLineCases.json";
import { reducer } from "./reducer";
import {
  facets,
  filterRows,
  groupRows,
  inboxRows,
  keyMayAct,
  lastFolder,
  lineOf,
  listEntries,
  moveFocus,
  NO_FILTER,
  rangeBetween,
  summarise,
  triageRow,
  type KeyContext,
} from "./triage";
import type { LoadedQuestion } from "./types";

function approval(id: string, command: string, project: string, fields: Partial<LoadedQuestion> = {}): LoadedQuestion {
  return questionInfo([choice(`Allow Bash: ${command}?`, ["Allow", "Allow always", "Deny"], false, "Bash")], {
    id,
    request: { questions: [choice(`Allow Bash: ${command}?`, ["Allow", "Allow always", "Deny"], false, "Bash")], approval: { tool_name: "Bash", input: { command }, project } },
    ...fields,
  });
}

const rows = [
  triageRow(approval("a1", "npm test", "/home/ada/src/shop", { agent: "claude", created_at_ms: NOW - 3 * 60 * MINUTE })),
  triageRow(questionInfo([choice("Deploy now?", ["Yes", "No"], false, "Deploy")], { id: "q1", agent: "deploy-bot", created_at_ms: NOW - 2 * MINUTE, request: { questions: [choice("Deploy now?", ["Yes", "No"], false, "Deploy")], metadata: { project: "/srv/api/" } } })),
  triageRow(questionInfo([freeForm("Severity?", { type: "integer" })], { id: "f1", agent: "triage", created_at_ms: NOW - 2 * 24 * 60 * MINUTE })),
  triageRow(approval("a2", "rm -rf dist", "/srv/api", { agent: "claude", created_at_ms: NOW - 30 * MINUTE })),
];

describe("triage rows", () => {
  it("know their kind, project folder and summary", () => {
    expect(rows.map((row) => row.kind)).toEqual(["approval", "question", "form", "approval"]);
    expect(rows.map((row) => row.projectName)).toEqual(["shop", "api", "", "api"]);
    expect(rows[0]?.summary).toBe("Bash: npm test");
    expect(rows[1]?.summary).toBe("Deploy · Deploy now?");
    expect(lastFolder("C:\\work\\docs\\")).toBe("docs");
  });

  it("are built once per question object", () => {
    const question = questionInfo([choice("Same?", ["Yes"])]);
    expect(triageRow(question)).toBe(triageRow(question));
  });

  it("are not rebuilt or re-sorted by events that leave the questions alone", () => {
    const state = stateFrom(snapshot({ pending: [pending("q-b", NOW - MINUTE), pending("q-a", NOW - 2 * MINUTE)] }));
    const first = inboxRows(state);
    expect(first.map((row) => row.id)).toEqual(["q-a", "q-b"]);
    const later = reducer(state, { type: "text_delta", sessionId: "s-q-a", text: "hello" });
    expect(later).not.toBe(state);
    expect(inboxRows(later)).toBe(first);
  });
});

describe("inbox lines", () => {
  it("are made in the window as the backend makes them for the start-up snapshot", () => {
    expect(inboxLineCases.length).toBeGreaterThan(10);
    for (const { request, line } of inboxLineCases as { request: QuestionRequest; line: InboxLine }[]) {
      expect(lineOf(request)).toEqual(line);
    }
  });

  it("give a row the same kind, summary and search text whether the question came whole or by its line", () => {
    const whole = questionInfo([choice("Deploy now?", ["Yes", "No"], false, "Deploy")], { request: { questions: [choice("Deploy now?", ["Yes", "No"], false, "Deploy")], metadata: { cwd: "/srv/api" } } });
    const byLine = { ...whole, request: null, line: lineOf(whole.request) };
    const fromWhole = triageRow(whole);
    const fromLine = triageRow(byLine);
    expect({ ...fromLine, question: null }).toEqual({ ...fromWhole, question: null });
    expect(fromLine.projectName).toBe("api");
  });
});

describe("filters and search", () => {
  const ids = (filter: Partial<typeof NO_FILTER>) => filterRows(rows, { ...NO_FILTER, ...filter }, NOW).map((row) => row.id);

  it("narrow by kind, agent, project and age", () => {
    expect(ids({})).toEqual(["a1", "q1", "f1", "a2"]);
    expect(ids({ kind: "approval" })).toEqual(["a1", "a2"]);
    expect(ids({ kind: "form" })).toEqual(["f1"]);
    expect(ids({ kind: "question" })).toEqual(["q1"]);
    expect(ids({ agent: "claude" })).toEqual(["a1", "a2"]);
    expect(ids({ project: "/srv/api" })).toEqual(["a2"]);
    expect(ids({ age: "hour" })).toEqual(["a1", "f1"]);
    expect(ids({ age: "day" })).toEqual(["f1"]);
  });

  it("search text in summaries, commands, agents and projects without regard to case", () => {
    expect(ids({ search: "NPM" })).toEqual(["a1"]);
    expect(ids({ search: "DEPLOY NOW" })).toEqual(["q1"]);
    expect(ids({ search: "shop" })).toEqual(["a1"]);
    expect(ids({ search: "  triage " })).toEqual(["f1"]);
    expect(ids({ search: "api", kind: "approval" })).toEqual(["a2"]);
    expect(ids({ search: "nothing like it" })).toEqual([]);
  });

  it("offer the agents and projects present", () => {
    expect(facets(rows)).toEqual({ agents: ["claude", "deploy-bot", "triage"], projects: ["/home/ada/src/shop", "/srv/api", "/srv/api/"] });
  });
});

describe("grouping", () => {
  it("groups by project or agent in order of each group's oldest row", () => {
    expect(groupRows(rows, "project").map((group) => [group.label, group.rows.map((row) => row.id)])).toEqual([
      ["shop", ["a1"]],
      ["api", ["q1"]],
      ["No project", ["f1"]],
      ["api", ["a2"]],
    ]);
    expect(groupRows(rows, "agent").map((group) => [group.label, group.rows.length])).toEqual([
      ["claude", 2],
      ["deploy-bot", 1],
      ["triage", 1],
    ]);
    expect(groupRows(rows, "none")).toHaveLength(1);
  });

  it("lists headers and the rows of open groups only", () => {
    const groups = groupRows(rows, "agent");
    const lines = listEntries(groups, "agent", new Set(["claude"]));
    expect(lines.map((line) => (line.type === "header" ? `# ${line.group.label}` : line.row.id))).toEqual(["# claude", "# deploy-bot", "q1", "# triage", "f1"]);
    expect(listEntries(groupRows(rows, "none"), "none", new Set()).every((line) => line.type === "row")).toBe(true);
  });
});

describe("selection and focus", () => {
  const order = ["a", "b", "c", "d", "e"];

  it("selects ranges either way and just the target without an anchor", () => {
    expect(rangeBetween(order, "b", "d")).toEqual(["b", "c", "d"]);
    expect(rangeBetween(order, "e", "c")).toEqual(["c", "d", "e"]);
    expect(rangeBetween(order, null, "c")).toEqual(["c"]);
    expect(rangeBetween(order, "gone", "c")).toEqual(["c"]);
    expect(rangeBetween(order, "a", "gone")).toEqual([]);
  });

  it("moves focus within the ends", () => {
    expect(moveFocus(order, "b", 1)).toBe("c");
    expect(moveFocus(order, "e", 1)).toBe("e");
    expect(moveFocus(order, "a", -1)).toBe("a");
    expect(moveFocus(order, null, 1)).toBe("a");
    expect(moveFocus([], null, 1)).toBeNull();
  });
});

describe("the key guard", () => {
  const ok: KeyContext = { inInbox: true, inTextField: false, focusedId: "a", focusedVisible: true, detailId: "a" };

  it("lets a key act on a focused, visible row whose card is shown", () => {
    expect(keyMayAct(ok)).toBe(true);
  });

  it("refuses anything else", () => {
    expect(keyMayAct({ ...ok, inInbox: false })).toBe(false);
    expect(keyMayAct({ ...ok, inTextField: true })).toBe(false);
    expect(keyMayAct({ ...ok, focusedId: null, detailId: null })).toBe(false);
    expect(keyMayAct({ ...ok, focusedVisible: false })).toBe(false);
    expect(keyMayAct({ ...ok, detailId: "b" })).toBe(false);
  });
});

describe("batch summaries", () => {
  it("count approvals, list their commands and name the projects", () => {
    const summary = summarise(rows);
    expect(summary).toEqual({ count: 4, approvals: 2, allApprovals: false, commands: ["Bash: npm test", "Bash: rm -rf dist"], projects: ["shop", "api", "no project"] });
    expect(summarise([rows[0], rows[3]].filter((row) => row !== undefined)).allApprovals).toBe(true);
    expect(summarise([]).allApprovals).toBe(false);
  });
});
