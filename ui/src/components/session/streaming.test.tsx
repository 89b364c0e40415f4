import { act } from "@testing-library/react";
import type { Dispatch } from "react";
import { describe, expect, it, vi } from "vitest";
import type { SessionView as SessionSnapshot } from "../../bindings/SessionView";
import type { Action } from "../../state/types";
import { choice, entry, summary } from "../../../test/builders";
import { DispatchProbe, fakeApi, renderWithStore } from "../../../test/render";
import { snapshot, stateFrom } from "../../../test/state";
import { useMetricsRefresh } from "../../hooks/useMetricsRefresh";

// Every component a session view is made of, wrapped to count its renders.
const renders = vi.hoisted(() => {
  const counts = new Map<string, number>();
  const counted = <P, R>(name: string, component: (props: P) => R) =>
    function Counted(props: P): R {
      counts.set(name, (counts.get(name) ?? 0) + 1);
      return component(props);
    };
  return { counts, counted };
});

vi.mock(import("./SessionView"), async (original) => {
  const module = await original();
  return { ...module, SessionView: renders.counted("SessionView", module.SessionView) };
});
vi.mock(import("./SessionHeader"), async (original) => {
  const module = await original();
  return { ...module, SessionHeader: renders.counted("SessionHeader", module.SessionHeader) };
});
vi.mock(import("./Timeline"), async (original) => {
  const module = await original();
  return { ...module, Timeline: renders.counted("Timeline", module.Timeline) };
});
vi.mock(import("./MessageRow"), async (original) => {
  const module = await original();
  return { ...module, MessageRow: renders.counted("MessageRow", module.MessageRow) };
});
vi.mock(import("./ToolCallRow"), async (original) => {
  const module = await original();
  return { ...module, ToolCallRow: renders.counted("ToolCallRow", module.ToolCallRow) };
});
vi.mock(import("./Composer"), async (original) => {
  const module = await original();
  return { ...module, Composer: renders.counted("Composer", module.Composer) };
});
vi.mock(import("./StreamingDraft"), async (original) => {
  const module = await original();
  return { ...module, StreamingDraft: renders.counted("StreamingDraft", module.StreamingDraft) };
});
vi.mock(import("../sidebar/Sidebar"), async (original) => {
  const module = await original();
  return { ...module, Sidebar: renders.counted("Sidebar", module.Sidebar) };
});
vi.mock(import("../question/ConnectedQuestionCard"), async (original) => {
  const module = await original();
  return { ...module, ConnectedQuestionCard: renders.counted("ConnectedQuestionCard", module.ConnectedQuestionCard) };
});

const { SessionView } = await import("./SessionView");
const { Sidebar } = await import("../sidebar/Sidebar");

/** What the app draws around a session: the sidebar beside it, and the metrics refresh. */
const Shell = renders.counted("Shell", function Shell() {
  useMetricsRefresh(true);
  return (
    <>
      <Sidebar route={{ view: "session", id: "s-1" }} onNavigate={() => undefined} />
      <SessionView sessionId="s-1" onOpenSession={() => undefined} onOpenQuestion={() => undefined} />
    </>
  );
});

const request = { questions: [choice("Ship it?", ["Yes", "No"])] };

const running: SessionSnapshot = {
  session: { ...summary("s-1", { status: "running", title: "Release" }), external_key: null, state: { state: "idle" }, payload: null },
  timeline: [
    entry(1, { kind: "user", text: "Release it" }),
    entry(2, { kind: "tool_use", id: "t-1", name: "read_file", input: { path: "notes.md" } }),
    entry(3, { kind: "tool_result", tool_use_id: "t-1", content: "v2", is_error: false }),
    entry(4, { kind: "tool_use", id: "t-q", name: "ask_user_question", input: request }),
    entry(5, { kind: "question", request_id: "q-1", tool_use_id: "t-q", origin: ["assistant"], request }),
  ],
  pending: null,
  questions: [],
};

describe("streaming text", () => {
  it("re-renders only its own slot and message, whatever the session shows above it", async () => {
    let dispatch: Dispatch<Action> = () => undefined;
    const api = fakeApi({ getSession: () => Promise.resolve(running) });
    const rendered = renderWithStore(
      <>
        <DispatchProbe onReady={(value) => (dispatch = value)} />
        <Shell />
      </>,
      { state: stateFrom(snapshot({ sessions: { sessions: [summary("s-1", { status: "running" })], next: null } })), api },
    );
    await rendered.findByText("Release it");
    act(() => dispatch({ type: "text_delta", sessionId: "s-1", text: "Shipping" }));
    expect(renders.counts.get("Timeline")).toBeGreaterThan(0);
    renders.counts.clear();

    act(() => dispatch({ type: "text_delta", sessionId: "s-1", text: " now" }));

    expect(rendered.getByText("Shipping now")).toBeInTheDocument();
    const total = [...renders.counts.values()].reduce((sum, count) => sum + count, 0);
    expect(Object.fromEntries(renders.counts)).toEqual({ StreamingDraft: 1, MessageRow: 1 });
    expect(total).toBeLessThanOrEqual(2);
  });
});
