import { act, cleanup, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { emit } from "@tauri-apps/api/event";
import type { Channel } from "@tauri-apps/api/core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { LiveEvent } from "./bindings/LiveEvent";
import type { PendingQuestion } from "./bindings/PendingQuestion";
import type { UiEvent } from "./bindings/UiEvent";
import { App } from "./App";
import { PHONE_LAYOUT } from "./components/common/usePhoneLayout";
import { FixedNow } from "./hooks/now";
import { StoreProvider } from "./state/store";
import { ToastProvider } from "./state/toasts";
import { choice, MINUTE, NOW, pending, recordOf, summary } from "../test/builders";
import { snapshot, type Snapshot } from "../test/state";

type Handler = (cmd: string, args: Record<string, unknown>) => unknown;

let channel: Channel<UiEvent> | null = null;
let calls: { cmd: string; args: Record<string, unknown> }[] = [];

function backend(overrides: Record<string, Handler> = {}) {
  calls = [];
  // The questions the last snapshot listed by their line, served whole by `get_question`.
  let listed: PendingQuestion[] = [];
  const remembered = (result: unknown) => {
    if (result !== null && typeof result === "object" && "whole" in result) listed = (result as Snapshot).whole;
    return result;
  };
  mockIPC(
    (ipc, payload) => {
      // Every window command comes through `window_command` with its name and arguments.
      const wrapped = (payload ?? {}) as Record<string, unknown>;
      const [cmd, args] = ipc === "window_command" ? [String(wrapped.command), (wrapped.args ?? {}) as Record<string, unknown>] : [ipc, wrapped];
      calls.push({ cmd, args });
      const override = overrides[cmd];
      if (override) return remembered(override(cmd, args));
      switch (cmd) {
        case "get_question": {
          const question = listed.find((candidate) => candidate.id === args.requestId);
          if (!question) throw { kind: "not_found", message: `no question ${String(args.requestId)}` };
          return recordOf(question);
        }
        case "start":
          return remembered(snapshot({
            last_seq: 10,
            pending: [pending("q-1", NOW - 5 * MINUTE, { session_id: "s-1" })],
            sessions: { sessions: [summary("s-1", { status: "waiting_for_input", title: "Deploy" })], next: null },
          }));
        case "subscribe":
          channel = args.onEvent as Channel<UiEvent>;
          return null;
        case "metrics":
          return snapshot().metrics;
        default:
          throw { kind: "not_found", message: `no mock for ${cmd}` };
      }
    },
    { shouldMockEvents: true },
  );
}

function renderApp() {
  return render(
    <ToastProvider>
      <StoreProvider>
        <FixedNow at={NOW}>
          <App />
        </FixedNow>
      </StoreProvider>
    </ToastProvider>,
  );
}

function push(event: LiveEvent) {
  act(() => channel?.onmessage({ type: "live", event }));
}

beforeEach(() => {
  window.location.hash = "";
  channel = null;
});

afterEach(() => {
  // Unmount while the mocked IPC still exists: unmounting stops the `navigate` listener.
  cleanup();
  clearMocks();
});

describe("the window", () => {
  it("draws pending questions from the snapshot and subscribes after its seq, once", async () => {
    backend();
    renderApp();
    expect(await screen.findByRole("article", { name: /Question q-1\?/ })).toBeInTheDocument();
    const subscribes = calls.filter((call) => call.cmd === "subscribe");
    expect(subscribes).toHaveLength(1);
    expect(subscribes[0]?.args.afterSeq).toBe(10);
  });

  it("applies live events after the snapshot's seq and ignores older ones", async () => {
    backend();
    renderApp();
    await screen.findByRole("article", { name: /Question q-1\?/ });
    const asked = (seq: number, id: string): LiveEvent => ({
      kind: "question_pending",
      seq,
      question: { id, session_id: "s-1", agent: "assistant", origin: ["assistant"], request: { questions: [choice(`Late ${id}?`, ["A", "B"])] }, created_at_ms: NOW, expires_at_ms: null },
    });
    push(asked(9, "q-stale"));
    push(asked(11, "q-2"));
    push(asked(11, "q-dup"));
    expect(screen.queryByRole("option", { name: /Late q-stale/ })).not.toBeInTheDocument();
    expect(screen.queryByRole("option", { name: /Late q-dup/ })).not.toBeInTheDocument();
    expect(screen.getByRole("option", { name: /Late q-2/ })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: /Inbox, 2 pending/ })).toBeInTheDocument();
  });

  it("answers through the `answer` command and shows the card read-only once the resolution arrives", async () => {
    let release: (value: unknown) => void = () => undefined;
    backend({ answer: () => new Promise((resolve) => (release = resolve)) });
    renderApp();
    const card = await screen.findByRole("article", { name: /Question q-1\?/ });
    await userEvent.click(within(card).getByRole("radio", { name: /No/ }));
    await userEvent.click(within(card).getByRole("button", { name: "Submit" }));
    expect(calls.find((call) => call.cmd === "answer")?.args).toEqual({ requestId: "q-1", answers: [{ selected: ["No"] }] });
    expect(within(card).getByRole("button", { name: "Submit" })).toBeDisabled();
    push({ kind: "question_resolved", seq: 11, session_id: "s-1", request_id: "q-1", status: "answered", outcome: { outcome: "answered", answers: [{ selected: ["No"] }] }, answered_via: "window", at_ms: NOW, question: null });
    expect(within(card).queryByRole("radio")).not.toBeInTheDocument();
    expect(within(card).getByText("Answered")).toBeInTheDocument();
    expect(within(card).getByText("via the window")).toBeInTheDocument();
    await act(async () => release({ question: { id: "q-1", session_id: "s-1", status: "answered", outcome: { outcome: "answered", answers: [{ selected: ["No"] }] }, answered_via: "window", resolved_at_ms: NOW }, repeat: false }));
    expect(within(card).getByText("Answered")).toBeInTheDocument();
  });

  it("shows a navigate problem as a dismissible banner and stays where it is", async () => {
    backend();
    renderApp();
    await screen.findByRole("heading", { name: "Inbox" });
    await act(() => emit("navigate", { to: "problem", message: "That link is not a Beckon link: beckon://nope" }));
    const banner = await screen.findByRole("alert");
    expect(banner).toHaveTextContent("That link is not a Beckon link: beckon://nope");
    expect(screen.getByRole("heading", { name: "Inbox" })).toBeInTheDocument();
    await userEvent.click(within(banner).getByRole("button", { name: "Dismiss" }));
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
  });

  it("navigating to a known question opens its session at the card, and keys typed meanwhile answer nothing", async () => {
    backend({
      get_session: () => ({
        session: { ...summary("s-1", { status: "waiting_for_input", title: "Deploy" }), external_key: null, state: { state: "idle" }, payload: null },
        timeline: [{ position: 1, message: { kind: "question", request_id: "q-1", tool_use_id: "t1", origin: ["research"], request: { questions: [choice("Question q-1?", ["Yes", "No"])] } }, at_ms: NOW }],
        pending: null,
        questions: [],
      }),
    });
    renderApp();
    await screen.findByRole("heading", { name: "Inbox" });
    await act(() => emit("navigate", { to: "question", id: "q-1" }));
    expect(await screen.findByRole("heading", { name: "Deploy" })).toBeInTheDocument();
    const card = await screen.findByRole("article", { name: /Question q-1\?/ });
    const form = within(card).getByRole("form");
    expect(form).not.toHaveFocus();
    // A link can come from any web page while the person types: their keys must not answer.
    await userEvent.keyboard("1{Enter}");
    expect(calls.filter((call) => call.cmd === "answer")).toEqual([]);
    // Once the person clicks into the card, the keys are theirs to answer with.
    await userEvent.click(within(card).getByText("Question q-1?"));
    await userEvent.keyboard("1{Enter}");
    await vi.waitFor(() => expect(calls.filter((call) => call.cmd === "answer")).toHaveLength(1));
  });

  it("navigating to an unknown question shows the inbox", async () => {
    backend();
    window.location.hash = "#/settings";
    renderApp();
    await screen.findByRole("heading", { name: "Settings" });
    await act(() => emit("navigate", { to: "question", id: "q-unknown" }));
    expect(await screen.findByRole("heading", { name: "Inbox" })).toBeInTheDocument();
  });

  it("shows an unavailable runtime's message full-window", async () => {
    backend({
      start: () => {
        throw { kind: "unavailable", message: "The database was written by a newer Beckon." };
      },
    });
    renderApp();
    const fatal = await screen.findByRole("alert");
    expect(within(fatal).getByRole("heading", { name: "Beckon could not start" })).toBeInTheDocument();
    expect(fatal).toHaveTextContent("The database was written by a newer Beckon.");
    expect(screen.queryByRole("navigation", { name: "Sessions" })).not.toBeInTheDocument();
  });

  it("reports a failed command in a toast without blocking the window", async () => {
    backend({
      start_session: () => {
        throw { kind: "invalid_input", message: "There is no agent named ghost." };
      },
    });
    renderApp();
    await screen.findByRole("heading", { name: "Inbox" });
    await userEvent.click(screen.getByRole("button", { name: "New chat" }));
    await userEvent.type(screen.getByRole("textbox", { name: "First message" }), "hello{Enter}");
    expect(await screen.findByRole("alert")).toHaveTextContent("Could not start the chat: There is no agent named ghost.");
    expect(screen.getByRole("textbox", { name: "First message" })).toHaveValue("hello");
  });
});

describe("the phone layout", () => {
  // jsdom has no matchMedia (the desktop layout, as in every test above); here it answers as a phone does.
  beforeEach(() => {
    vi.stubGlobal("matchMedia", (query: string) => ({ matches: query === PHONE_LAYOUT, addEventListener: () => undefined, removeEventListener: () => undefined }));
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });
  const sidebar = () => document.getElementById("sidebar");

  it("puts the sidebar behind a Menu button that opens it over the view; Escape closes it and gives focus back", async () => {
    backend();
    renderApp();
    await screen.findByRole("button", { name: "Menu" });
    const bar = document.querySelector(".topbar") as HTMLElement;
    const menu = within(bar).getByRole("button", { name: "Menu" });
    expect(menu).toHaveAttribute("aria-expanded", "false");
    expect(menu).toHaveAttribute("aria-controls", "sidebar");
    expect(sidebar()).not.toHaveClass("is-open");
    expect(within(bar).getByRole("button", { name: /Inbox, 1 pending/ })).toHaveAttribute("aria-current", "page");
    await userEvent.click(menu);
    expect(menu).toHaveAttribute("aria-expanded", "true");
    expect(sidebar()).toHaveClass("is-open");
    expect(screen.getByRole("main")).toHaveAttribute("inert");
    await userEvent.keyboard("{Escape}");
    expect(menu).toHaveAttribute("aria-expanded", "false");
    expect(sidebar()).not.toHaveClass("is-open");
    expect(screen.getByRole("main")).not.toHaveAttribute("inert");
    expect(menu).toHaveFocus();
  });

  it("closes the panel when somewhere is chosen in it, or beside it is tapped", async () => {
    backend({
      get_session: () => ({
        session: { ...summary("s-1", { status: "waiting_for_input", title: "Deploy" }), external_key: null, state: { state: "idle" }, payload: null },
        timeline: [],
        pending: null,
        questions: [],
      }),
    });
    renderApp();
    const menu = await screen.findByRole("button", { name: "Menu" });
    await userEvent.click(menu);
    await userEvent.click(within(screen.getByRole("navigation", { name: "Sessions" })).getByRole("button", { name: /Deploy/ }));
    expect(await screen.findByRole("heading", { name: "Deploy" })).toBeInTheDocument();
    expect(menu).toHaveAttribute("aria-expanded", "false");
    await userEvent.click(menu);
    await userEvent.click(document.querySelector(".sidebar-backdrop") as HTMLElement);
    expect(menu).toHaveAttribute("aria-expanded", "false");
    expect(sidebar()).not.toHaveClass("is-open");
    await userEvent.click(within(document.querySelector(".topbar") as HTMLElement).getByRole("button", { name: /Inbox/ }));
    expect(await screen.findByRole("heading", { name: "Inbox" })).toBeInTheDocument();
  });
});

describe("the desktop layout", () => {
  it("has no top bar: the sidebar is its own column", async () => {
    backend();
    renderApp();
    await screen.findByRole("heading", { name: "Inbox" });
    expect(document.querySelector(".topbar")).toBeNull();
    expect(screen.queryByRole("button", { name: "Menu" })).not.toBeInTheDocument();
    expect(screen.getByRole("main")).not.toHaveAttribute("inert");
  });
});

describe("starting from a link", () => {
  it("opens where the snapshot's navigate target points", async () => {
    backend({
      start: () =>
        snapshot({
          last_seq: 3,
          sessions: { sessions: [summary("s-1", { status: "completed", title: "Linked session" })], next: null },
          navigate: { to: "session", id: "s-1" },
        }),
      get_session: () => ({
        session: { ...summary("s-1", { status: "completed", title: "Linked session" }), external_key: null, state: { state: "completed" }, payload: null },
        timeline: [],
        pending: null,
        questions: [],
      }),
    });
    renderApp();
    expect(await screen.findByRole("heading", { name: "Linked session" })).toBeInTheDocument();
  });
});

describe("the first run", () => {
  it("opens a new Beckon on its guide, which Got it puts away for good; Settings shows it again", async () => {
    const fresh = snapshot();
    backend({
      start: () => ({ ...fresh, settings: { ...fresh.settings, guide_dismissed: false } }),
      beckon_command: () => "/usr/bin/beckon",
      agents_status: () => [],
      start_at_login: () => false,
      dismiss_guide: () => ({ ...fresh.settings, guide_dismissed: true }),
    });
    renderApp();
    expect(await screen.findByRole("heading", { name: "Welcome to Beckon" })).toBeInTheDocument();
    expect(window.location.hash).toBe("#/guide");
    await userEvent.click(screen.getAllByRole("button", { name: "Got it" })[0]!);
    expect(await screen.findByRole("heading", { name: "Inbox" })).toBeInTheDocument();
    expect(calls.filter((call) => call.cmd === "dismiss_guide")).toHaveLength(1);
    await userEvent.click(screen.getByRole("button", { name: "Settings" }));
    await userEvent.click(await screen.findByRole("button", { name: "Show the getting-started guide" }));
    expect(await screen.findByRole("heading", { name: "Welcome to Beckon" })).toBeInTheDocument();
  });

  it("opens on the inbox when questions already wait, even before the guide was put away", async () => {
    const waiting = snapshot({ pending: [pending("q-1", NOW - 5 * MINUTE, { session_id: "s-1" })] });
    backend({ start: () => ({ ...waiting, settings: { ...waiting.settings, guide_dismissed: false } }) });
    renderApp();
    expect(await screen.findByRole("article", { name: /Question q-1\?/ })).toBeInTheDocument();
    expect(screen.getByRole("heading", { name: "Inbox" })).toBeInTheDocument();
    expect(screen.queryByRole("heading", { name: "Welcome to Beckon" })).not.toBeInTheDocument();
  });
});
