import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { Dispatch } from "react";
import { describe, expect, it, vi } from "vitest";
import type { LiveEvent } from "../../bindings/LiveEvent";
import type { SessionStatus } from "../../bindings/SessionStatus";
import type { SessionView as SessionSnapshot } from "../../bindings/SessionView";
import type { TimelineEntry } from "../../bindings/TimelineEntry";
import type { Action } from "../../state/types";
import { choice, entry, HOSTILE, NOW, summary } from "../../../test/builders";
import { DispatchProbe, fakeApi, renderWithStore } from "../../../test/render";
import { snapshot, stateFrom } from "../../../test/state";
import { SessionView } from "./SessionView";

const request = { questions: [choice("Ship it?", ["Yes", "No"])] };

function view(status: SessionStatus, timeline: TimelineEntry[], reason?: string): SessionSnapshot {
  return {
    session: {
      ...summary("s-1", { status, title: "Release" }),
      external_key: null,
      state: status === "failed" ? { state: "failed", reason: reason ?? "" } : { state: "idle" },
      payload: null,
    },
    timeline,
    pending: null,
    questions: [],
  };
}

function show(snapshotView: SessionSnapshot, api = fakeApi({ getSession: () => Promise.resolve(snapshotView) })) {
  let dispatch: Dispatch<Action> = () => undefined;
  const rendered = renderWithStore(
    <>
      <DispatchProbe onReady={(value) => (dispatch = value)} />
      <SessionView sessionId="s-1" onOpenSession={() => undefined} onOpenQuestion={() => undefined} />
    </>,
    { state: stateFrom(snapshot({ sessions: { sessions: [summary("s-1", { status: snapshotView.session.status, title: "Release" })], next: null } })), api },
  );
  const send = (action: Action) => act(() => dispatch(action));
  const live = (event: LiveEvent) => send({ type: "live", event });
  return { ...rendered, send, live };
}

const asking = [
  entry(1, { kind: "user", text: "Release it" }),
  entry(2, { kind: "assistant", text: "One question first." }),
  entry(3, { kind: "tool_use", id: "t-q", name: "ask_user_question", input: request }),
  entry(4, { kind: "question", request_id: "q-1", tool_use_id: "t-q", origin: ["assistant"], request }),
];

describe("the session view", () => {
  it("draws messages, collapsed tool calls with input and result, and marks failed calls", async () => {
    show(
      view("completed", [
        entry(1, { kind: "user", text: "Read the file" }),
        entry(2, { kind: "tool_use", id: "t1", name: "read_file", input: { path: "notes.md" } }),
        entry(3, { kind: "tool_result", tool_use_id: "t1", content: "No such file", is_error: true }),
        entry(4, { kind: "assistant", text: "The file is missing." }),
      ]),
    );
    expect(await screen.findByText("The file is missing.")).toBeInTheDocument();
    const call = screen.getByText("read_file").closest("details") as HTMLDetailsElement;
    expect(call.open).toBe(false);
    expect(within(call.querySelector("summary") as HTMLElement).getByText("Error")).toBeInTheDocument();
    await userEvent.click(screen.getByText("read_file"));
    expect(call.open).toBe(true);
    expect(within(call).getByText(/"path": "notes.md"/)).toBeInTheDocument();
    expect(within(call).getByText("No such file")).toBeInTheDocument();
  });

  it("renders hostile assistant and user text literally", async () => {
    const { container } = show(view("completed", [entry(1, { kind: "user", text: HOSTILE }), entry(2, { kind: "assistant", text: `Sure ${HOSTILE}` })]));
    expect(await screen.findByText(`Sure ${HOSTILE}`)).toBeInTheDocument();
    // Rendered, not the text as written while the Markdown renderer loads.
    await waitFor(() => expect(container.querySelector(".md-loading")).toBeNull());
    expect(screen.getByText(HOSTILE)).toBeInTheDocument();
    expect(container.querySelector("img")).toBeNull();
  });

  it("streams assistant text into a draft after the timeline; the committed message replaces it and the card element stays the same", async () => {
    const { live, send } = show(view("waiting_for_input", asking));
    const card = await screen.findByRole("article", { name: /Ship it\?/ });
    live({ kind: "question_resolved", seq: 20, session_id: "s-1", request_id: "q-1", status: "answered", outcome: { outcome: "answered", answers: [{ selected: ["Yes"] }] }, answered_via: "window", at_ms: NOW, question: null });
    live({ kind: "session_status", seq: 21, session_id: "s-1", status: "running", reason: null, at_ms: NOW + 1 });
    send({ type: "text_delta", sessionId: "s-1", text: "Shipping " });
    send({ type: "text_delta", sessionId: "s-1", text: "now" });
    expect(screen.getByText("Shipping now")).toBeInTheDocument();
    expect(screen.getByRole("article", { name: /Ship it\?/ })).toBe(card);
    live({ kind: "message_appended", seq: 22, session_id: "s-1", entry: entry(5, { kind: "assistant", text: "Shipping now." }) });
    expect(screen.queryByText("Shipping now")).not.toBeInTheDocument();
    expect(screen.getByText("Shipping now.")).toBeInTheDocument();
    expect(screen.getByRole("article", { name: /Ship it\?/ })).toBe(card);
    const rows = [...screen.getByRole("list", { name: "Conversation" }).children];
    expect(rows.map((row) => row.textContent?.slice(0, 12))).toEqual(["You:Release ", "Agent:One qu", "assistant as", "Agent:Shippi"]);
  });

  it("shows Resumed on the card once the agent continues", async () => {
    const { live } = show(view("waiting_for_input", asking));
    const card = await screen.findByRole("article", { name: /Ship it\?/ });
    live({ kind: "question_resolved", seq: 20, session_id: "s-1", request_id: "q-1", status: "answered", outcome: { outcome: "answered", answers: [{ selected: ["Yes"] }] }, answered_via: "window", at_ms: NOW, question: null });
    expect(within(card).queryByText("Resumed")).not.toBeInTheDocument();
    live({ kind: "session_resumed", seq: 21, session_id: "s-1", request_id: "q-1" });
    expect(within(card).getByText("Resumed")).toBeInTheDocument();
  });

  it("while waiting, the composer says so and points at the question", async () => {
    show({ ...view("waiting_for_input", asking), questions: [] });
    const card = await screen.findByRole("article", { name: /Ship it\?/ });
    expect(screen.getByText("The agent is waiting for your answer.")).toBeInTheDocument();
    expect(screen.queryByRole("textbox", { name: "Message" })).not.toBeInTheDocument();
    card.scrollIntoView = vi.fn();
    await userEvent.click(screen.getByRole("button", { name: /Go to the question/ }));
    expect(card.scrollIntoView).toHaveBeenCalled();
    expect(within(card).getByRole("form")).toHaveFocus();
  });

  it("continues a completed session with send_message", async () => {
    const sendMessage = vi.fn(() => Promise.resolve(null));
    const snap = view("completed", [entry(1, { kind: "user", text: "hi" })]);
    show(snap, fakeApi({ getSession: () => Promise.resolve(snap), sendMessage }));
    await userEvent.type(await screen.findByRole("textbox", { name: "Message" }), "And the docs?{Enter}");
    expect(sendMessage).toHaveBeenCalledWith("s-1", "And the docs?");
  });

  it("shows why a failed session failed", async () => {
    show(view("failed", [entry(1, { kind: "user", text: "hi" })], "The provider rejected the key."));
    expect(await screen.findByText("The provider rejected the key.")).toBeInTheDocument();
  });

  it("cancels a waiting session after a confirming second click", async () => {
    const cancel = vi.fn(() => Promise.resolve(null));
    const snap = view("waiting_for_input", asking);
    show(snap, fakeApi({ getSession: () => Promise.resolve(snap), cancel }));
    await userEvent.click(await screen.findByRole("button", { name: "Cancel session" }));
    expect(cancel).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole("button", { name: "Really cancel?" }));
    expect(cancel).toHaveBeenCalledWith("s-1");
  });
});
