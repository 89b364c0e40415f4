// @vitest-environment node
import { describe, expect, it } from "vitest";
import { entry, inboxEntry, MINUTE, NOW, pending, summary } from "../../test/builders";
import { initialState } from "./initial";
import { reducer } from "./reducer";
import { inboxQuestions, isResumed, pendingQuestionFor, topLevelSessions } from "./selectors";
import type { AppState } from "./types";

function withPending(...questions: ReturnType<typeof pending>[]): AppState {
  return reducer(initialState, {
    type: "bootstrap",
    data: {
      last_seq: 1,
      pending: questions.map(inboxEntry),
      sessions: { sessions: [summary("s-new", { created_at_ms: NOW }), summary("s-old", { created_at_ms: NOW - 60 * MINUTE }), summary("s-child", { parent: "s-old" })], next: null },
      agents: [],
      agent_problems: [],
      default_agent: "a",
      metrics: null as never,
      settings: null as never,
      data_dir: "",
      navigate: null,
      gateway_url: null,
      gateway_problem: null,
    },
  });
}

describe("the inbox", () => {
  it("lists pending questions oldest first, whatever order they arrive in", () => {
    const state = withPending(pending("b", NOW - 5 * MINUTE), pending("c", NOW - MINUTE), pending("a", NOW - 50 * MINUTE));
    expect(inboxQuestions(state).map((question) => question.id)).toEqual(["a", "b", "c"]);
  });
});

describe("sessions", () => {
  it("the sidebar lists top-level sessions only, newest first", () => {
    expect(topLevelSessions(withPending()).map((session) => session.id)).toEqual(["s-new", "s-old"]);
  });

  it("a parent session finds the question its sub-agent waits on", () => {
    const state = withPending(pending("q", NOW, { session_id: "s-child", origin: ["old", "child"] }));
    expect(pendingQuestionFor(state, "s-old")?.id).toBe("q");
    expect(pendingQuestionFor(state, "s-new")).toBeUndefined();
  });
});

describe("resumed", () => {
  it("counts a question as resumed once the timeline holds its tool result", () => {
    let state = reducer(initialState, {
      type: "session_loaded",
      view: {
        session: { ...summary("s-1"), external_key: null, state: { state: "completed" }, payload: null },
        timeline: [entry(1, { kind: "question", request_id: "q-1", tool_use_id: "toolu_9", origin: ["a"], request: { questions: [] } })],
        pending: null,
        questions: [],
      },
    });
    const question = state.questions["q-1"];
    if (!question) throw new Error("question missing");
    expect(isResumed(state, question)).toBe(false);
    state = reducer(state, { type: "live", event: { kind: "message_appended", seq: 5, session_id: "s-1", entry: entry(2, { kind: "tool_result", tool_use_id: "toolu_9", content: "{}", is_error: false }) } });
    expect(isResumed(state, question)).toBe(true);
  });
});
