import { act, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { BatchDecision, BatchReceipt, RuleOffer } from "../../api/triage";
import type { PendingQuestion } from "../../bindings/PendingQuestion";
import type { RequestId } from "../../bindings/RequestId";
import { choice, MINUTE, NOW, pending } from "../../../test/builders";
import { fakeApi, renderWithStore } from "../../../test/render";
import { snapshot, stateFrom } from "../../../test/state";
import { PHONE_LAYOUT } from "../common/usePhoneLayout";
import { InboxView } from "./InboxView";

afterEach(() => {
  window.localStorage.clear();
});

function approval(id: string, minutesAgo: number, command: string, project: string, agent = "claude"): PendingQuestion {
  const item = choice(`Allow Bash: ${command}?`, ["Allow", "Allow always", "Deny"], false, "Bash");
  return pending(id, NOW - minutesAgo * MINUTE, { agent, origin: [agent], request: { questions: [item], approval: { tool_name: "Bash", input: { command }, project } } });
}

function question(id: string, minutesAgo: number, text: string): PendingQuestion {
  return pending(id, NOW - minutesAgo * MINUTE, { agent: "deploy-bot", origin: ["deploy-bot"], request: { questions: [choice(text, ["Yes", "No", "Later"])], metadata: { project: "/srv/shop" } } });
}

const mixed = snapshot({
  pending: [
    approval("a1", 50, "npm test", "/srv/shop"),
    question("q1", 40, "Deploy now?"),
    approval("a2", 30, "rm -rf dist", "/srv/api"),
    approval("a3", 20, "make docs", "/srv/docs"),
  ],
});

const focusedRow = () => document.querySelector(".inbox-row.is-focused")?.getAttribute("data-request-id-row");
const shownCard = () => document.querySelector(".inbox-detail article")?.getAttribute("data-request-id");

/** The box that selects the row named `name` (for the pointer: hidden from assistive technology). */
function rowBox(name: RegExp): HTMLElement {
  const box = screen.getByRole("option", { name }).querySelector<HTMLElement>(".inbox-row-check");
  if (!box) throw new Error(`the row ${String(name)} has no box`);
  return box;
}

describe("the inbox's keys", () => {
  it("walk the rows with j/k and the arrows, each step showing the row's card", async () => {
    localStorage.setItem("beckon.inbox.groupBy", "none");
    renderWithStore(<InboxView onOpenSession={() => undefined} />, { state: stateFrom(mixed) });
    await userEvent.click(screen.getByRole("option", { name: /npm test/ }));
    expect(screen.getByRole("listbox")).toHaveFocus();
    await userEvent.keyboard("j");
    expect([focusedRow(), shownCard()]).toEqual(["q1", "q1"]);
    await userEvent.keyboard("{ArrowDown}{ArrowDown}{ArrowDown}");
    expect([focusedRow(), shownCard()]).toEqual(["a3", "a3"]);
    await userEvent.keyboard("k{ArrowUp}");
    expect([focusedRow(), shownCard()]).toEqual(["q1", "q1"]);
    expect(screen.getByRole("listbox")).toHaveAttribute("aria-activedescendant", "inbox-row-q1");
  });

  it("choose an option of the open card with 1–4 without sending it, then send it with Enter", async () => {
    const answer = vi.fn((id: RequestId) => Promise.resolve({ question: { id, session_id: `s-${id}`, status: "answered" as const, outcome: { outcome: "answered" as const, answers: [] }, answered_via: "window" as const, resolved_at_ms: NOW }, repeat: false }));
    localStorage.setItem("beckon.inbox.groupBy", "none");
    renderWithStore(<InboxView onOpenSession={() => undefined} />, { state: stateFrom(mixed), api: fakeApi({ answer }) });
    await userEvent.click(screen.getByRole("option", { name: /Deploy now/ }));
    await userEvent.keyboard("2");
    const card = screen.getByRole("article");
    expect(within(card).getByRole("radio", { name: /No/ })).toBeChecked();
    expect(answer).not.toHaveBeenCalled();
    await userEvent.keyboard("{Enter}");
    expect(answer).toHaveBeenCalledWith("q1", [{ selected: ["No"] }]);
  });

  it("Enter with nothing chosen goes into the card's form, not onto its links", async () => {
    const answer = vi.fn();
    localStorage.setItem("beckon.inbox.groupBy", "none");
    renderWithStore(<InboxView onOpenSession={() => undefined} />, { state: stateFrom(mixed), api: fakeApi({ answer }) });
    await userEvent.click(screen.getByRole("option", { name: /Deploy now/ }));
    await userEvent.keyboard("{Enter}");
    const form = screen.getByRole("article").querySelector("form");
    expect(form).toContainElement(document.activeElement as HTMLElement);
    expect(document.activeElement).toHaveAttribute("type", "radio");
    expect(answer).not.toHaveBeenCalled();
  });

  it("allow with a, deny with d and a message, skip with s — and move on", async () => {
    const answer = vi.fn((id: RequestId) => Promise.resolve({ question: { id, session_id: `s-${id}`, status: "answered" as const, outcome: { outcome: "answered" as const, answers: [] }, answered_via: "window" as const, resolved_at_ms: NOW }, repeat: false }));
    const decline = vi.fn((id: RequestId) => Promise.resolve({ question: { id, session_id: `s-${id}`, status: "declined" as const, outcome: { outcome: "declined" as const, reason: null }, answered_via: "window" as const, resolved_at_ms: NOW }, repeat: false }));
    localStorage.setItem("beckon.inbox.groupBy", "none");
    renderWithStore(<InboxView onOpenSession={() => undefined} />, { state: stateFrom(mixed), api: fakeApi({ answer, decline }) });
    await userEvent.click(screen.getByRole("option", { name: /npm test/ }));
    await userEvent.keyboard("a");
    expect(answer).toHaveBeenLastCalledWith("a1", [{ selected: ["Allow"] }]);
    expect(focusedRow()).toBe("q1");
    await userEvent.keyboard("a");
    expect(answer).toHaveBeenCalledTimes(1);
    await userEvent.keyboard("s");
    expect(decline).toHaveBeenLastCalledWith("q1");
    expect(focusedRow()).toBe("a2");
    await userEvent.keyboard("d");
    const prompt = screen.getByRole("dialog", { name: "Deny" });
    expect(prompt).toHaveTextContent("Bash: rm -rf dist");
    await userEvent.keyboard("not on main{Enter}");
    expect(answer).toHaveBeenLastCalledWith("a2", [{ selected: ["Deny"], comment: "not on main" }]);
  });

  it("do nothing from a text field, from outside the inbox, or on a row scrolled out of view", async () => {
    const answer = vi.fn();
    localStorage.setItem("beckon.inbox.groupBy", "none");
    renderWithStore(<InboxView onOpenSession={() => undefined} />, { state: stateFrom(mixed), api: fakeApi({ answer }) });
    // Nothing has focus yet, as after a link raised the window.
    await userEvent.keyboard("a");
    await userEvent.keyboard("/");
    const search = screen.getByRole("searchbox", { name: "Search questions" });
    await userEvent.click(search);
    await userEvent.keyboard("as");
    expect(search).toHaveValue("as");
    await userEvent.clear(search);
    await userEvent.click(screen.getByRole("option", { name: /npm test/ }));
    const scroller = document.querySelector(".inbox-scroller") as HTMLElement;
    act(() => {
      scroller.scrollTop = 5000;
    });
    await userEvent.keyboard("a");
    expect(answer).not.toHaveBeenCalled();
  });

  it("leave Enter on a button to the button", async () => {
    const answer = vi.fn();
    renderWithStore(<InboxView onOpenSession={() => undefined} />, { state: stateFrom(mixed), api: fakeApi({ answer }) });
    await userEvent.click(screen.getByRole("option", { name: /npm test/ }));
    screen.getByRole("button", { name: /Select all in this group \(shop\)/ }).focus();
    await userEvent.keyboard("{Enter}");
    expect(screen.getByRole("toolbar", { name: "Selected questions" })).toHaveTextContent("2 selected");
    await userEvent.keyboard("a");
    expect(answer).not.toHaveBeenCalled();
  });

  it("/ focuses the search, ? lists the keys, Escape closes the list", async () => {
    renderWithStore(<InboxView onOpenSession={() => undefined} />, { state: stateFrom(mixed) });
    await userEvent.click(screen.getByRole("option", { name: /npm test/ }));
    await userEvent.keyboard("?");
    expect(screen.getByRole("dialog", { name: "Keyboard" })).toHaveTextContent("Allow the focused approval once");
    await userEvent.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    screen.getByRole("listbox").focus();
    await userEvent.keyboard("/");
    expect(screen.getByRole("searchbox", { name: "Search questions" })).toHaveFocus();
  });
});

describe("grouping and filtering", () => {
  it("groups by project with counts, remembers the choice, and counts what filters leave", async () => {
    renderWithStore(<InboxView onOpenSession={() => undefined} />, { state: stateFrom(mixed) });
    const headers = () => [...document.querySelectorAll(".inbox-group-toggle")].map((node) => node.textContent);
    expect(headers()).toEqual(["shop2", "api1", "docs1"]);
    await userEvent.selectOptions(screen.getByRole("combobox", { name: "Group by" }), "agent");
    expect(headers()).toEqual(["claude3", "deploy-bot1"]);
    expect(localStorage.getItem("beckon.inbox.groupBy")).toBe("agent");
    await userEvent.click(screen.getByRole("button", { name: /^claude/ }));
    expect(within(screen.getByRole("listbox")).getAllByRole("option")).toHaveLength(1);
    await userEvent.selectOptions(screen.getByRole("combobox", { name: "Kind" }), "approval");
    expect(screen.getByText("3 of 4")).toBeInTheDocument();
    await userEvent.type(screen.getByRole("searchbox", { name: "Search questions" }), "RM -RF");
    expect(screen.getByText("1 of 4")).toBeInTheDocument();
  });
});

describe("batches", () => {
  const failing = (ids: RequestId[], decision: BatchDecision): Promise<BatchReceipt> => Promise.resolve({ resolved: [], failed: ids.map((id) => ({ request_id: id, error: { kind: "invalid_input" as const, message: `no ${decision.decision}` } })) });
  function renderBatch(pendingQuestions: PendingQuestion[], answerBatch = vi.fn(failing)) {
    localStorage.setItem("beckon.inbox.groupBy", "none");
    renderWithStore(<InboxView onOpenSession={() => undefined} />, { state: stateFrom(snapshot({ pending: pendingQuestions })), api: fakeApi({ answerBatch }) });
    return answerBatch;
  }

  it("select with boxes, shift-click ranges and ctrl-click toggles, and confirm approvals naming the count, the commands and the projects", async () => {
    const answerBatch = renderBatch(mixed.whole);
    const user = userEvent.setup();
    await user.click(rowBox(/npm test/));
    await user.keyboard("{Shift>}");
    await user.click(screen.getByRole("option", { name: /make docs/ }));
    await user.keyboard("{/Shift}");
    const bar = screen.getByRole("toolbar", { name: "Selected questions" });
    expect(bar).toHaveTextContent("4 selected");
    expect(within(bar).queryByRole("button", { name: "Allow once all" })).not.toBeInTheDocument();
    await user.keyboard("{Control>}");
    await user.click(screen.getByRole("option", { name: /Deploy now/ }));
    await user.keyboard("{/Control}");
    expect(bar).toHaveTextContent("3 selected");
    await user.click(within(bar).getByRole("button", { name: "Allow once all" }));
    const dialog = screen.getByRole("dialog", { name: "Allow once 3 approvals?" });
    expect(dialog).toHaveTextContent("from 3 projects: shop, api, docs");
    expect(within(within(dialog).getByRole("list", { name: "Commands" })).getAllByRole("listitem").map((item) => item.textContent)).toEqual(["Bash: npm test", "Bash: rm -rf dist", "Bash: make docs"]);
    expect(dialog).not.toHaveTextContent("Allow always");
    await user.click(within(dialog).getByRole("button", { name: "Allow once 3 approvals" }));
    expect(answerBatch).toHaveBeenCalledWith(["a1", "a2", "a3"], { decision: "allow_once" });
    expect(await screen.findByText("0 resolved, 3 failed")).toBeInTheDocument();
    expect(screen.getByRole("status")).toHaveTextContent("Bash: npm test: no allow_once");
  });

  it("list the first twenty commands and how many more, for a whole group selected at once", async () => {
    const many = Array.from({ length: 25 }, (_, i) => approval(`a${i}`, 100 - i, `echo ${i}`, "/srv/shop"));
    const answerBatch = vi.fn((ids: RequestId[], decision: BatchDecision) => Promise.resolve({ resolved: [], failed: ids.map((id) => ({ request_id: id, error: { kind: "invalid_input" as const, message: `no ${decision.decision}` } })) }));
    renderWithStore(<InboxView onOpenSession={() => undefined} />, { state: stateFrom(snapshot({ pending: many })), api: fakeApi({ answerBatch }) });
    await userEvent.click(screen.getByRole("button", { name: /Select all in this group/ }));
    const bar = screen.getByRole("toolbar", { name: "Selected questions" });
    expect(bar).toHaveTextContent("25 selected");
    await userEvent.click(within(bar).getByRole("button", { name: "Deny all" }));
    const dialog = screen.getByRole("dialog", { name: "Deny 25 approvals?" });
    expect(dialog).not.toHaveTextContent("projects");
    expect(within(dialog).getAllByRole("listitem")).toHaveLength(20);
    expect(dialog).toHaveTextContent("and 5 more");
    await userEvent.type(within(dialog).getByRole("textbox", { name: /Message to the agents/ }), "stop");
    await userEvent.click(within(dialog).getByRole("button", { name: "Deny 25 approvals" }));
    expect(answerBatch).toHaveBeenCalledWith(many.map((question) => question.id), { decision: "deny", message: "stop" });
  });

  it("decline questions without a confirmation and show what was resolved", async () => {
    const answerBatch = vi.fn((ids: RequestId[]): Promise<BatchReceipt> => Promise.resolve({ resolved: ids.map((id) => ({ id, session_id: `s-${id}`, status: "declined" as const, outcome: { outcome: "declined" as const, reason: null }, answered_via: "window" as const, resolved_at_ms: NOW })), failed: [] }));
    renderBatch([question("q1", 40, "One?"), question("q2", 30, "Two?")], answerBatch);
    await userEvent.click(rowBox(/One\?/));
    await userEvent.click(rowBox(/Two\?/));
    await userEvent.click(screen.getByRole("button", { name: "Decline all" }));
    expect(answerBatch).toHaveBeenCalledWith(["q1", "q2"], { decision: "decline", reason: null });
    expect(await screen.findByText("2 resolved")).toBeInTheDocument();
  });
});

describe("rule offers", () => {
  const offer: RuleOffer = { key: "k1", spec: { tool: "Bash", matcher: { kind: "command", prefix: "npm test" }, project: "/srv/shop" }, description: "Always allow `npm test` in shop?", allowed: 3, last_allowed_at_ms: NOW };

  it("offer a rule and make it, or put it off", async () => {
    const createRule = vi.fn(() => Promise.resolve({ id: 3, spec: offer.spec, key: offer.key, description: "Allow `npm test` in shop", source: "offered" as const, created_at_ms: NOW, fired: 0, last_fired_at_ms: null, revoked_at_ms: null }));
    const dismissRuleOffer = vi.fn(() => Promise.resolve(null));
    let offers = [offer, { ...offer, key: "k2", description: "Always allow `cargo test` in api?", allowed: 4 }];
    const ruleOffers = vi.fn(() => Promise.resolve(offers));
    renderWithStore(<InboxView onOpenSession={() => undefined} />, { state: stateFrom(mixed), api: fakeApi({ createRule, dismissRuleOffer, ruleOffers }) });
    const banner = await screen.findByRole("region", { name: "Rule suggestion" });
    expect(banner).toHaveTextContent("Always allow npm test in shop? — allowed 3 times");
    expect(within(banner).getByText("npm test").tagName).toBe("CODE");
    offers = offers.slice(1);
    await userEvent.click(within(banner).getByRole("button", { name: "Make it a rule" }));
    expect(createRule).toHaveBeenCalledWith(offer.spec, "offered");
    expect(await screen.findByText(/cargo test/)).toBeInTheDocument();
    offers = [];
    await userEvent.click(screen.getByRole("button", { name: "Not now" }));
    expect(dismissRuleOffer).toHaveBeenCalledWith("k2");
    expect(screen.queryByRole("region", { name: "Rule suggestion" })).not.toBeInTheDocument();
  });
});

describe("in the phone layout", () => {
  // jsdom has no matchMedia (the desktop layout); here it answers as a phone does.
  beforeEach(() => {
    vi.stubGlobal("matchMedia", (query: string) => ({ matches: query === PHONE_LAYOUT, addEventListener: () => undefined, removeEventListener: () => undefined }));
    localStorage.setItem("beckon.inbox.groupBy", "none");
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });
  const body = () => document.querySelector(".inbox-body");

  it("a row opens its card in the list's place, and Back to the list returns with focus on the list", async () => {
    renderWithStore(<InboxView onOpenSession={() => undefined} />, { state: stateFrom(mixed) });
    expect(body()).not.toHaveClass("shows-card");
    expect(document.activeElement).toBe(document.body);
    await userEvent.click(screen.getByRole("option", { name: /Deploy now/ }));
    expect(body()).toHaveClass("shows-card");
    await vi.waitFor(() => expect(shownCard()).toBe("q1"));
    const back = screen.getByRole("button", { name: "Back to the list" });
    expect(back).toHaveFocus();
    await userEvent.click(back);
    expect(body()).not.toHaveClass("shows-card");
    expect(screen.getByRole("listbox")).toHaveFocus();
    expect(focusedRow()).toBe("q1");
  });

  it("a row's box selects it without opening its card", async () => {
    renderWithStore(<InboxView onOpenSession={() => undefined} />, { state: stateFrom(mixed) });
    await userEvent.click(rowBox(/Deploy now/));
    expect(body()).not.toHaveClass("shows-card");
    expect(screen.getByRole("toolbar", { name: "Selected questions" })).toHaveTextContent("1 selected");
  });

  it("keys answer no card while it is behind the list; Enter opens it", async () => {
    const answer = vi.fn();
    renderWithStore(<InboxView onOpenSession={() => undefined} />, { state: stateFrom(mixed), api: fakeApi({ answer }) });
    act(() => screen.getByRole("listbox").focus());
    await userEvent.keyboard("a");
    expect(answer).not.toHaveBeenCalled();
    await userEvent.keyboard("{Enter}");
    expect(body()).toHaveClass("shows-card");
    await vi.waitFor(() => expect(shownCard()).toBe("a1"));
    expect(answer).not.toHaveBeenCalled();
  });

  it("a link opens straight on its card", async () => {
    renderWithStore(<InboxView onOpenSession={() => undefined} highlightId="a2" />, { state: stateFrom(mixed) });
    expect(body()).toHaveClass("shows-card");
    await vi.waitFor(() => expect(shownCard()).toBe("a2"));
  });

  it("folds the menus behind Filters, which counts the menus in use", async () => {
    renderWithStore(<InboxView onOpenSession={() => undefined} />, { state: stateFrom(mixed) });
    const filters = screen.getByRole("button", { name: "Filters" });
    expect(filters).toHaveAttribute("aria-expanded", "false");
    expect(screen.queryByRole("combobox", { name: "Kind" })).not.toBeInTheDocument();
    expect(screen.getByRole("searchbox", { name: "Search questions" })).toBeVisible();
    await userEvent.click(filters);
    expect(filters).toHaveAttribute("aria-expanded", "true");
    expect(document.getElementById(filters.getAttribute("aria-controls") ?? "")).toBeVisible();
    await userEvent.selectOptions(screen.getByRole("combobox", { name: "Kind" }), "approval");
    await userEvent.selectOptions(screen.getByRole("combobox", { name: "Age" }), "hour");
    expect(screen.getByRole("button", { name: "Filters (2)" })).toBeInTheDocument();
  });
});

describe("in the desktop layout", () => {
  it("has no way back to the list nor a Filters button: the list, the menus and the card are all shown", async () => {
    renderWithStore(<InboxView onOpenSession={() => undefined} />, { state: stateFrom(mixed) });
    await userEvent.click(screen.getByRole("option", { name: /Deploy now/ }));
    expect(document.querySelector(".inbox-body")).not.toHaveClass("shows-card");
    expect(screen.queryByRole("button", { name: "Back to the list" })).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /Filters/ })).not.toBeInTheDocument();
    expect(screen.getByRole("combobox", { name: "Kind" })).toBeVisible();
  });
});
