import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { NowProvider } from "../../hooks/now";
import { StoreProvider } from "../../state/store";
import { ToastProvider } from "../../state/toasts";
import { CommandError } from "../../api/errors";
import type { QuestionRecord } from "../../bindings/QuestionRecord";
import { initialState } from "../../state/initial";
import { reducer } from "../../state/reducer";
import { choice, freeForm, MINUTE, NOW, pending, recordOf } from "../../../test/builders";
import { fakeApi, renderWithStore } from "../../../test/render";
import { snapshot, stateFrom } from "../../../test/state";
import { InboxView } from "./InboxView";

afterEach(() => {
  vi.useRealTimers();
  window.localStorage.clear();
});

const three = snapshot({
  pending: [
    pending("q-new", NOW - 2 * MINUTE, { agent: "triage", origin: ["triage"], request: { questions: [freeForm("Severity?", { type: "integer" })] } }),
    pending("q-old", NOW - 90 * MINUTE, { agent: "deploy-bot", origin: ["deploy-bot"], request: { questions: [choice("Deploy now?", ["Yes", "No"])] }, expires_at_ms: NOW + 30 * MINUTE }),
    pending("q-mid", NOW - 20 * MINUTE, { agent: "summariser", origin: ["research", "summariser"], request: { questions: [choice("Which sources?", ["A", "B"], true)] } }),
  ],
});

describe("the inbox view", () => {
  it("lists every pending question oldest first as a row and shows the oldest one's card beside it, a frame later", async () => {
    renderWithStore(<InboxView onOpenSession={() => undefined} />, { state: stateFrom(three) });
    const rows = within(screen.getByRole("listbox", { name: "Pending questions" })).getAllByRole("option");
    expect(rows.map((row) => row.getAttribute("data-request-id-row"))).toEqual(["q-old", "q-mid", "q-new"]);
    expect(rows[0]).toHaveTextContent("deploy-bot");
    expect(rows[0]).toHaveTextContent("Pick · Deploy now?");
    expect(rows[0]).toHaveTextContent("1 h");
    // The list's first frame goes out without the card.
    expect(screen.queryByRole("article")).not.toBeInTheDocument();
    const card = await screen.findByRole("article");
    expect(card).toHaveAttribute("data-request-id", "q-old");
    expect(within(card).getByText("deploy-bot asks")).toBeInTheDocument();
    expect(within(card).getByText("waiting 1 h 30 min")).toBeInTheDocument();
    expect(within(card).getByText("expires in 30 min")).toBeInTheDocument();
    expect(screen.getByText("3 questions are waiting")).toBeInTheDocument();
  });

  it("lists questions by their line alone and fetches one whole when its card opens; nothing on it answers before", async () => {
    let deliver: (record: QuestionRecord) => void = () => undefined;
    const getQuestion = vi.fn(() => new Promise<QuestionRecord>((resolve) => (deliver = resolve)));
    const light = reducer(initialState, { type: "bootstrap", data: three });
    renderWithStore(<InboxView onOpenSession={() => undefined} />, { state: light, api: fakeApi({ getQuestion }) });
    const rows = within(screen.getByRole("listbox", { name: "Pending questions" })).getAllByRole("option");
    expect(rows[0]).toHaveTextContent("Pick · Deploy now?");
    expect(rows[1]).toHaveTextContent("summariser");
    expect(rows[1]).toHaveTextContent("Which sources?");
    expect(await screen.findByText("Loading the question…")).toBeInTheDocument();
    // The card asks for its question once it is shown, which may be a moment after the text.
    await waitFor(() => expect(getQuestion).toHaveBeenCalledExactlyOnceWith("q-old"));
    // No card to act on yet: the keys look for one with the focused question's id.
    expect(document.querySelector("[data-request-id]")).toBeNull();
    expect(screen.queryByRole("form")).not.toBeInTheDocument();
    const old = three.whole.find((question) => question.id === "q-old");
    act(() => deliver(recordOf(old!)));
    const form = await screen.findByRole("form", { name: "Answer: Deploy now?" });
    expect(within(form).getByRole("radio", { name: /Yes/ })).toBeInTheDocument();
    expect(screen.getByRole("article")).toHaveAttribute("data-request-id", "q-old");
    expect(getQuestion).toHaveBeenCalledTimes(1);
  });

  it("says when a question cannot be fetched, and fetches it again when asked", async () => {
    const old = three.whole.find((question) => question.id === "q-old")!;
    const getQuestion = vi
      .fn<(id: string) => Promise<QuestionRecord>>()
      .mockRejectedValueOnce(new CommandError({ kind: "unavailable", message: "the store is closed" }))
      .mockResolvedValueOnce(recordOf(old));
    const light = reducer(initialState, { type: "bootstrap", data: three });
    renderWithStore(<InboxView onOpenSession={() => undefined} />, { state: light, api: fakeApi({ getQuestion }) });
    expect(await screen.findByRole("alert")).toHaveTextContent("Could not load this question: the store is closed");
    await userEvent.click(screen.getByRole("button", { name: "Try again" }));
    expect(await screen.findByRole("form", { name: "Answer: Deploy now?" })).toBeInTheDocument();
    expect(getQuestion).toHaveBeenCalledTimes(2);
  });

  it("opens a row's card when the row is clicked", async () => {
    renderWithStore(<InboxView onOpenSession={() => undefined} />, { state: stateFrom(three) });
    await userEvent.click(screen.getByRole("option", { name: /Severity\?/ }));
    const card = screen.getByRole("article");
    expect(within(card).getByText("waiting 2 min")).toBeInTheDocument();
    expect(within(card).getByText("triage asks")).toBeInTheDocument();
  });

  it("opens without moving keyboard focus into a card, so keys typed meanwhile answer nothing", async () => {
    renderWithStore(<InboxView onOpenSession={() => undefined} />, { state: stateFrom(three) });
    const form = await screen.findByRole("form", { name: "Answer: Deploy now?" });
    expect(form).not.toHaveFocus();
    expect(document.activeElement).toBe(document.body);
    await userEvent.keyboard("1");
    expect(within(form).getAllByRole("radio").some((radio) => (radio as HTMLInputElement).checked)).toBe(false);
  });

  it("updates the waiting label as time passes", () => {
    vi.useFakeTimers({ now: NOW, toFake: ["Date", "setInterval", "clearInterval", "setTimeout", "clearTimeout", "requestAnimationFrame", "cancelAnimationFrame"] });
    render(
      <ToastProvider>
        <StoreProvider api={fakeApi()} initial={stateFrom(snapshot({ pending: [pending("q", NOW - 3 * MINUTE)] }))}>
          <NowProvider intervalMs={15_000}>
            <InboxView onOpenSession={() => undefined} />
          </NowProvider>
        </StoreProvider>
      </ToastProvider>,
    );
    // The card follows the list's first frame.
    act(() => {
      vi.advanceTimersByTime(50);
    });
    expect(screen.getByText("waiting 3 min")).toBeInTheDocument();
    act(() => {
      vi.advanceTimersByTime(2 * MINUTE);
    });
    expect(screen.getByText("waiting 5 min")).toBeInTheDocument();
  });

  it("links each question to its session", async () => {
    const onOpenSession = vi.fn();
    renderWithStore(<InboxView onOpenSession={onOpenSession} />, { state: stateFrom(three) });
    await userEvent.click(screen.getByRole("option", { name: /Which sources/ }));
    const card = screen.getByRole("article", { name: /research › summariser asks/ });
    await userEvent.click(within(card).getByRole("button", { name: /Open session/ }));
    expect(onOpenSession).toHaveBeenCalledWith("s-q-mid");
  });

  it("says when nothing is waiting", () => {
    renderWithStore(<InboxView onOpenSession={() => undefined} />, { state: stateFrom(snapshot()) });
    expect(screen.getByText("All caught up")).toBeInTheDocument();
  });

  it("keeps an answered card, read-only with the winning answer, when another front end won the race", async () => {
    const winner = { id: "q-old", session_id: "s-q-old", status: "answered" as const, outcome: { outcome: "answered" as const, answers: [{ selected: ["No"] }] }, answered_via: "notification" as const, resolved_at_ms: NOW };
    const answer = vi.fn(() => Promise.reject({ kind: "already_resolved", message: "already answered", winner }));
    renderWithStore(<InboxView onOpenSession={() => undefined} />, { state: stateFrom(three), api: fakeApi({ answer }) });
    const card = await screen.findByRole("article", { name: /deploy-bot asks/ });
    await userEvent.click(within(card).getByRole("radio", { name: /Yes/ }));
    await userEvent.click(within(card).getByRole("button", { name: "Submit" }));
    expect(await within(card).findByText(/answered elsewhere first/)).toBeInTheDocument();
    expect(within(card).getByRole("list", { name: "Chosen" })).toHaveTextContent("No");
    expect(within(card).getByText("via a notification")).toBeInTheDocument();
    expect(within(card).queryByRole("radio")).not.toBeInTheDocument();
  });
});
