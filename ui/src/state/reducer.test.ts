// @vitest-environment node
import { describe, expect, it } from "vitest";
import type { Bootstrap } from "../bindings/Bootstrap";
import type { LiveEvent } from "../bindings/LiveEvent";
import type { SessionView } from "../bindings/SessionView";
import { choice, entry, inboxEntry, MINUTE, NOW, pending, recordOf, summary } from "../../test/builders";
import { fromRecord } from "./convert";
import { initialState } from "./initial";
import { reducer } from "./reducer";
import { buildRows } from "./rows";
import { inboxQuestions, pendingQuestions, timelineOf } from "./selectors";
import type { Action, AppState } from "./types";

const request = { questions: [choice("Deploy now?", ["Yes", "No"])] };

function boot(fields: Partial<Bootstrap> = {}): AppState {
  return reducer(initialState, {
    type: "bootstrap",
    data: {
      last_seq: 10,
      pending: [],
      sessions: { sessions: [summary("s-1")], next: null },
      agents: [],
      agent_problems: [],
      default_agent: "assistant",
      metrics: { pending: 0, longest_wait_ms: null, resolved: 0, decline_rate: 0, expire_rate: 0, cancel_rate: 0, answer_latency: { count: 0, p50_ms: null, p90_ms: null, p99_ms: null }, agents: [] },
      settings: null as never,
      data_dir: "/data",
      navigate: null,
      gateway_url: null,
      gateway_problem: null,
      ...fields,
    },
  });
}

const apply = (state: AppState, ...events: LiveEvent[]) => events.reduce((current, event) => reducer(current, { type: "live", event }), state);
const run = (state: AppState, ...actions: Action[]) => actions.reduce(reducer, state);

const asked = (seq: number, id = "q-1", sessionId = "s-1"): LiveEvent => ({
  kind: "question_pending",
  seq,
  question: { id, session_id: sessionId, agent: "assistant", origin: ["assistant"], request, created_at_ms: NOW - MINUTE, expires_at_ms: null },
});
const resolved = (seq: number, id = "q-1"): LiveEvent => ({
  kind: "question_resolved",
  seq,
  session_id: "s-1",
  request_id: id,
  status: "answered",
  outcome: { outcome: "answered", answers: [{ selected: ["Yes"] }] },
  answered_via: "notification",
  at_ms: NOW,
  question: null,
});
const appended = (seq: number, position: number, message: Parameters<typeof entry>[1]): LiveEvent => ({ kind: "message_appended", seq, session_id: "s-1", entry: entry(position, message) });

describe("seq ordering and idempotence", () => {
  it("ignores an event at or below the last applied seq", () => {
    const state = boot();
    expect(apply(state, asked(10))).toBe(state);
    expect(apply(state, asked(9))).toBe(state);
    expect(pendingQuestions(apply(state, asked(11)))).toHaveLength(1);
  });

  it("applying the same event twice equals applying it once", () => {
    const once = apply(boot(), asked(11), appended(12, 1, { kind: "user", text: "hi" }));
    const twice = apply(once, asked(11), appended(12, 1, { kind: "user", text: "hi" }));
    expect(twice).toBe(once);
  });

  it("the snapshot lists a question by its line; its pending event or a fetch fills in the request and nothing else", () => {
    const listed = pending("q-1", NOW - MINUTE, { session_id: "s-1", request, agent: "assistant", origin: ["assistant"] });
    const state = boot({ pending: [inboxEntry(listed)] });
    expect(state.questions["q-1"]?.request).toBeNull();
    expect(state.questions["q-1"]?.line?.summary).toBe("Pick · Deploy now?");
    const fetched = reducer(state, { type: "question_loaded", question: recordOf(listed) });
    expect(fetched.questions["q-1"]?.request).toEqual(request);
    expect(fetched.questions["q-1"]?.line).toBe(state.questions["q-1"]?.line);
    expect(fetched.pending).toBe(state.pending);
    expect(reducer(fetched, { type: "question_loaded", question: recordOf(listed) })).toBe(fetched);
    const after = apply(state, asked(11));
    expect(after.questions["q-1"]?.request).toEqual(request);
    expect(after.pending).toBe(state.pending);
    expect(after.lastSeq).toBe(11);
  });

  it("a late pending event cannot reopen a resolved question", () => {
    const state = run(boot(), { type: "resolved", question: { id: "q-1", session_id: "s-1", status: "answered", outcome: { outcome: "answered", answers: [] }, answered_via: "window", resolved_at_ms: NOW } });
    const after = apply(state, asked(11));
    expect(after.questions["q-1"]?.status).toBe("answered");
    expect(pendingQuestions(after)).toHaveLength(0);
  });

  it("a session snapshot older than an applied status event does not roll the status back", () => {
    const started = apply(boot(), { kind: "session_status", seq: 11, session_id: "s-1", status: "completed", reason: null, at_ms: NOW });
    const stale: SessionView = {
      session: { ...summary("s-1", { status: "running", updated_at_ms: NOW - MINUTE }), external_key: null, state: { state: "llm_requesting", attempt: 1 }, payload: null },
      timeline: [],
      pending: null,
      questions: [],
    };
    expect(run(started, { type: "session_loaded", view: stale }).sessions["s-1"]?.status).toBe("completed");
  });

  it("a snapshot fetched after events keeps entries the events added, without doubling them", () => {
    const withEvents = apply(boot(), appended(11, 1, { kind: "user", text: "hi" }), appended(12, 2, { kind: "assistant", text: "hello" }));
    const view: SessionView = {
      session: { ...summary("s-1"), external_key: null, state: { state: "idle" }, payload: null },
      timeline: [entry(1, { kind: "user", text: "hi" })],
      pending: null,
      questions: [],
    };
    const loaded = run(withEvents, { type: "session_loaded", view });
    expect(timelineOf(loaded, "s-1").map((item) => item.position)).toEqual([1, 2]);
  });
});

describe("questions", () => {
  it("a resolution moves the question out of the inbox but keeps it on screen until the inbox is left", () => {
    const state = apply(boot(), asked(11), resolved(12));
    expect(pendingQuestions(state)).toEqual([]);
    expect(inboxQuestions(state).map((question) => question.id)).toEqual(["q-1"]);
    expect(state.questions["q-1"]).toMatchObject({ status: "answered", answered_via: "notification" });
    expect(inboxQuestions(run(state, { type: "inbox_left" }))).toEqual([]);
  });

  it("a resolution carrying the whole question shows it whole, though the window never saw it asked", () => {
    const question = {
      id: "q-9",
      session_id: "s-1",
      tool_use_id: "toolu_9",
      agent: "deploy-bot",
      origin: ["deploy-bot"],
      request,
      status: "declined" as const,
      outcome: { outcome: "declined" as const, reason: "not today" },
      answered_via: "cli" as const,
      callback_url: null,
      created_at_ms: NOW - MINUTE,
      resolved_at_ms: NOW,
      expires_at_ms: null,
      expiry_policy: null,
    };
    const event: LiveEvent = { kind: "question_resolved", seq: 12, session_id: "s-1", request_id: "q-9", status: "declined", outcome: question.outcome, answered_via: "cli", at_ms: NOW, question };
    const state = apply(boot(), event);
    // Everything the window keeps of a question comes from the event.
    expect(state.questions["q-9"]).toEqual(fromRecord(question));
    expect(state.questions["q-9"]).toMatchObject({ agent: "deploy-bot", tool_use_id: "toolu_9", request, created_at_ms: NOW - MINUTE });
  });

  it("the first resolution wins over a later, different one", () => {
    const state = apply(boot(), asked(11), resolved(12));
    const later = run(state, { type: "resolved", question: { id: "q-1", session_id: "s-1", status: "declined", outcome: { outcome: "declined" }, answered_via: "window", resolved_at_ms: NOW } });
    expect(later.questions["q-1"]?.status).toBe("answered");
  });

  it("session_resumed marks the question resumed", () => {
    const state = apply(boot(), asked(11), resolved(12), { kind: "session_resumed", seq: 13, session_id: "s-1", request_id: "q-1" });
    expect(state.resumed["q-1"]).toBe(true);
  });

  it("an answer entry in the timeline resolves the question it names", () => {
    const state = apply(
      boot(),
      appended(11, 1, { kind: "question", request_id: "q-1", tool_use_id: "toolu_1", origin: ["assistant"], request }),
      appended(12, 2, { kind: "answer", request_id: "q-1", outcome: { outcome: "declined", reason: null } }),
    );
    expect(state.questions["q-1"]).toMatchObject({ status: "declined", tool_use_id: "toolu_1" });
  });
});

describe("streaming", () => {
  it("text deltas build a draft that the committed assistant message replaces in one step", () => {
    let state = apply(boot(), appended(11, 1, { kind: "user", text: "hi" }));
    state = run(state, { type: "text_delta", sessionId: "s-1", text: "Hel" }, { type: "text_delta", sessionId: "s-1", text: "lo" });
    expect(state.drafts["s-1"]).toBe("Hello");
    state = apply(state, appended(12, 2, { kind: "assistant", text: "Hello" }));
    expect(state.drafts["s-1"]).toBeUndefined();
    expect(timelineOf(state, "s-1").at(-1)?.message).toEqual({ kind: "assistant", text: "Hello" });
  });

  it("a session leaving running drops its unfinished draft", () => {
    const state = apply(run(boot(), { type: "text_delta", sessionId: "s-1", text: "Hal" }), { kind: "session_status", seq: 11, session_id: "s-1", status: "failed", reason: "provider down", at_ms: NOW });
    expect(state.drafts["s-1"]).toBeUndefined();
    expect(state.failures["s-1"]).toBe("provider down");
  });

  it("the question card keeps its place and key while text streams and commits after it", () => {
    let state = apply(
      boot(),
      appended(11, 1, { kind: "assistant", text: "Before I go on:" }),
      appended(12, 2, { kind: "tool_use", id: "toolu_1", name: "ask_user_question", input: request }),
      appended(13, 3, { kind: "question", request_id: "q-1", tool_use_id: "toolu_1", origin: ["assistant"], request }),
    );
    const before = buildRows(timelineOf(state, "s-1"));
    state = run(state, { type: "text_delta", sessionId: "s-1", text: "Thanks" });
    state = apply(state, resolved(14), appended(15, 4, { kind: "answer", request_id: "q-1", outcome: { outcome: "answered", answers: [] } }), appended(16, 5, { kind: "tool_result", tool_use_id: "toolu_1", content: "{}", is_error: false }), appended(17, 6, { kind: "assistant", text: "Thanks, done." }));
    const after = buildRows(timelineOf(state, "s-1"));
    const cardIndex = (rows: typeof before) => rows.findIndex((row) => row.key === "q:q-1");
    expect(cardIndex(before)).toBe(1);
    expect(cardIndex(after)).toBe(1);
    expect(after.slice(0, 2).map((row) => row.key)).toEqual(before.map((row) => row.key));
  });
});

describe("sessions", () => {
  it("session_started adds a session; session_deleted removes it and its questions for good", () => {
    let state = apply(boot(), { kind: "session_started", seq: 11, session_id: "s-2", agent: "research", origin: "chat", parent: null, title: "New", status: "running", at_ms: NOW });
    expect(state.sessions["s-2"]?.title).toBe("New");
    state = apply(state, asked(12, "q-2", "s-2"), { kind: "session_deleted", seq: 13, session_id: "s-2" });
    expect(state.sessions["s-2"]).toBeUndefined();
    expect(pendingQuestions(state)).toEqual([]);
    state = run(state, { type: "sessions_page", page: { sessions: [summary("s-2")], next: null } });
    expect(state.sessions["s-2"]).toBeUndefined();
  });
});

describe("a window in a browser on a team server", () => {
  it("starts from the person's share of the inbox, knows who they are, and keeps no desktop state", () => {
    const waiting = pending("q-9", NOW - MINUTE, { session_id: "s-9" });
    const state = reducer(initialState, {
      type: "team_bootstrap",
      data: {
        last_seq: 7,
        pending: [inboxEntry(waiting)],
        sessions: { sessions: [summary("s-9")], next: null },
        metrics: { pending: 1, longest_wait_ms: null, resolved: 0, decline_rate: 0, expire_rate: 0, cancel_rate: 0, answer_latency: { count: 0, p50_ms: null, p90_ms: null, p99_ms: null }, agents: [] },
      },
      person: { subject: "ada", name: "Ada", email: "ada@example.com", groups: ["eng"], admin: false },
    });
    expect(state.lastSeq).toBe(7);
    expect(state.person?.subject).toBe("ada");
    expect(pendingQuestions(state).map((question) => question.id)).toEqual(["q-9"]);
    expect(Object.keys(state.sessions)).toEqual(["s-9"]);
    expect(state.settings).toBeNull();
    expect(state.agents).toEqual([]);
    // Events after the snapshot apply as in the desktop app.
    expect(pendingQuestions(apply(state, asked(8, "q-10", "s-9"))).map((question) => question.id).sort()).toEqual(["q-10", "q-9"]);
  });

  it("the desktop's snapshot leaves no one signed in", () => {
    expect(boot().person).toBeNull();
  });
});

describe("team inboxes in the desktop app", () => {
  const inboxes = [{ id: "team-1", name: "Acme", url: "https://beckon.acme.example", signed_in_as: "Ada", status: { state: "live" as const } }];

  it("shows what waits in a team inbox beside the local questions, marked with its name", () => {
    const local = pending("q-1", NOW - MINUTE);
    const remote = pending("q-t", NOW - MINUTE, { session_id: "s-t" });
    let state = run(boot({ pending: [inboxEntry(local)] }), { type: "team_inboxes", state: { inboxes, waiting: [{ inbox: "Acme", entry: inboxEntry(remote) }] } });
    expect(pendingQuestions(state).map((question) => [question.id, question.inbox ?? null]).sort()).toEqual([
      ["q-1", null],
      ["q-t", "Acme"],
    ]);
    expect(state.teamInboxes[0]?.name).toBe("Acme");
    // No longer waiting there (answered elsewhere, or signed out): it leaves; the local one stays.
    state = run(state, { type: "team_inboxes", state: { inboxes, waiting: [] } });
    expect(pendingQuestions(state).map((question) => question.id)).toEqual(["q-1"]);
    expect(state.questions["q-t"]).toBeUndefined();
  });
});
