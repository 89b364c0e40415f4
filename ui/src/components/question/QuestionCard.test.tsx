import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { Answer } from "../../bindings/Answer";
import type { ChoiceQuestion } from "../../bindings/ChoiceQuestion";
import type { LoadedQuestion } from "../../state/types";
import { choice, freeForm, HOSTILE, MINUTE, NOW, questionInfo } from "../../../test/builders";
import { renderAt } from "../../../test/render";
import { QuestionCard } from "./QuestionCard";
import type { SubmitResult } from "./QuestionForm";

function setup(question: LoadedQuestion, { resumed = false, result = { ok: true } as SubmitResult } = {}) {
  const onAnswer = vi.fn<(answers: Answer[]) => Promise<SubmitResult>>(() => Promise.resolve(result));
  const onDecline = vi.fn<() => Promise<SubmitResult>>(() => Promise.resolve(result));
  const user = userEvent.setup();
  const view = renderAt(<QuestionCard question={question} resumed={resumed} onAnswer={onAnswer} onDecline={onDecline} />);
  return { onAnswer, onDecline, user, view };
}

const deploy = choice("When should the migration run?", ["Now", "Tonight", "Never"], false, "Migration");

describe("answering each kind of item", () => {
  it("single-select sends exactly the chosen label", async () => {
    const { user, onAnswer } = setup(questionInfo([deploy]));
    await user.click(screen.getByRole("radio", { name: /Tonight/ }));
    await user.click(screen.getByRole("button", { name: "Submit" }));
    expect(onAnswer).toHaveBeenCalledWith([{ selected: ["Tonight"] }]);
  });

  it("single-select Other replaces the chosen option and sends only the text", async () => {
    const { user, onAnswer } = setup(questionInfo([deploy]));
    await user.click(screen.getByRole("radio", { name: /Now/ }));
    await user.type(screen.getByRole("textbox", { name: "Other answer" }), "After the freeze");
    expect(screen.getByRole("radio", { name: /Now/ })).not.toBeChecked();
    expect(screen.getByRole("radio", { name: "Other" })).toBeChecked();
    await user.click(screen.getByRole("button", { name: "Submit" }));
    expect(onAnswer).toHaveBeenCalledWith([{ selected: [], other: "After the freeze" }]);
  });

  it("multi-select sends the chosen labels in the order chosen, with Other", async () => {
    const labels = choice("Which areas?", ["Auth", "Billing", "Search"], true, "Areas");
    const { user, onAnswer } = setup(questionInfo([labels]));
    expect(screen.getAllByRole("checkbox")).toHaveLength(4);
    await user.click(screen.getByRole("checkbox", { name: /Search/ }));
    await user.click(screen.getByRole("checkbox", { name: /Auth/ }));
    await user.type(screen.getByRole("textbox", { name: "Other answer" }), "Docs");
    await user.click(screen.getByRole("button", { name: "Submit" }));
    expect(onAnswer).toHaveBeenCalledWith([{ selected: ["Search", "Auth"], other: "Docs" }]);
  });

  it("shows each option's description", () => {
    setup(questionInfo([deploy]));
    expect(screen.getByRole("radio", { name: /Tonight/ })).toHaveAccessibleDescription("About Tonight");
  });

  it("free-form email string renders an email input with its length limits and sends the text", async () => {
    const item = freeForm("Who owns the follow-up?", { type: "string", format: "email", minLength: 5, maxLength: 80 }, "Owner");
    const { user, onAnswer } = setup(questionInfo([item]));
    const input = screen.getByRole("textbox", { name: "Who owns the follow-up?" });
    expect(input).toHaveAttribute("type", "email");
    expect(input).toHaveAttribute("minlength", "5");
    expect(input).toHaveAttribute("maxlength", "80");
    expect(screen.getByText(/An email address, 5–80 characters/)).toBeInTheDocument();
    await user.type(input, "ana@example.com");
    await user.click(screen.getByRole("button", { name: "Submit" }));
    expect(onAnswer).toHaveBeenCalledWith([{ value: "ana@example.com" }]);
  });

  it("an agent's pattern never reaches the browser's regular expressions; the answer goes to Beckon to check", async () => {
    const item = freeForm("Which ticket?", { type: "string", maxLength: 100, pattern: "^(a+)+b$" }, "Ticket");
    const { user, onAnswer } = setup(questionInfo([item]));
    const input = screen.getByRole("textbox", { name: "Which ticket?" });
    // An input's pattern attribute is run by the browser's backtracking engine at every keystroke.
    expect(input).not.toHaveAttribute("pattern");
    await user.type(input, `${"a".repeat(30)}!`);
    await user.click(screen.getByRole("button", { name: "Submit" }));
    expect(onAnswer).toHaveBeenCalledWith([{ value: `${"a".repeat(30)}!` }]);
  });

  it("free-form string formats map to date, URL and date-time inputs", () => {
    setup(
      questionInfo([
        freeForm("Release day?", { type: "string", format: "date" }),
        freeForm("Where is the doc?", { type: "string", format: "uri" }),
        freeForm("When exactly?", { type: "string", format: "date-time" }),
      ]),
    );
    expect(screen.getByLabelText("Release day?", { selector: "input" })).toHaveAttribute("type", "date");
    expect(screen.getByLabelText("Where is the doc?", { selector: "input" })).toHaveAttribute("type", "url");
    expect(screen.getByLabelText("When exactly?", { selector: "input" })).toHaveAttribute("type", "datetime-local");
  });

  it("number range renders a numeric input with min, max and any step, and sends a number", async () => {
    const item = freeForm("Budget in euros?", { type: "number", minimum: 0.5, maximum: 99.5 });
    const { user, onAnswer } = setup(questionInfo([item]));
    const input = screen.getByRole("spinbutton", { name: "Budget in euros?" });
    expect(input).toHaveAttribute("min", "0.5");
    expect(input).toHaveAttribute("max", "99.5");
    expect(input).toHaveAttribute("step", "any");
    await user.type(input, "12.25");
    await user.click(screen.getByRole("button", { name: "Submit" }));
    expect(onAnswer).toHaveBeenCalledWith([{ value: 12.25 }]);
  });

  it("integer uses step 1 and refuses a fraction before sending", async () => {
    const item = freeForm("How many replicas?", { type: "integer", minimum: 1, maximum: 5 });
    const { user, onAnswer } = setup(questionInfo([item]));
    const input = screen.getByRole("spinbutton", { name: "How many replicas?" });
    expect(input).toHaveAttribute("step", "1");
    expect(screen.getByText("A whole number from 1 to 5")).toBeInTheDocument();
    await user.type(input, "2.5");
    await user.click(screen.getByRole("button", { name: "Submit" }));
    expect(onAnswer).not.toHaveBeenCalled();
    expect(input).toHaveAccessibleDescription(/Enter a whole number/);
    await user.clear(input);
    await user.type(input, "3");
    await user.click(screen.getByRole("button", { name: "Submit" }));
    expect(onAnswer).toHaveBeenCalledWith([{ value: 3 }]);
  });

  it("boolean renders a switch and sends its state", async () => {
    const item = freeForm("Notify the channel?", { type: "boolean" });
    const { user, onAnswer } = setup(questionInfo([item]));
    const toggle = screen.getByRole("switch", { name: "Notify the channel?" });
    expect(toggle).not.toBeChecked();
    await user.click(toggle);
    await user.click(screen.getByRole("button", { name: "Submit" }));
    expect(onAnswer).toHaveBeenCalledWith([{ value: true }]);
  });

  it("enum renders a select titled by enumNames and sends the enum value", async () => {
    const item = freeForm("Severity?", { type: "string", enum: ["p0", "p1"], enumNames: ["P0 — outage", "P1 — major"] });
    const { user, onAnswer } = setup(questionInfo([item]));
    const select = screen.getByRole("combobox", { name: "Severity?" });
    expect(within(select).getByRole("option", { name: "P0 — outage" })).toHaveValue("p0");
    await user.selectOptions(select, "P1 — major");
    await user.click(screen.getByRole("button", { name: "Submit" }));
    expect(onAnswer).toHaveBeenCalledWith([{ value: "p1" }]);
  });

  it("sends one answer per item, in order, with comments", async () => {
    const { user, onAnswer } = setup(questionInfo([deploy, freeForm("How many?", { type: "integer" })]));
    await user.click(screen.getByRole("radio", { name: /Never/ }));
    await user.click(screen.getAllByRole("button", { name: "Add a comment" })[0] as HTMLElement);
    await user.type(screen.getByRole("textbox", { name: /Comment/ }), "Too risky");
    await user.type(screen.getByRole("spinbutton", { name: "How many?" }), "4");
    await user.click(screen.getByRole("button", { name: "Submit" }));
    expect(onAnswer).toHaveBeenCalledWith([{ selected: ["Never"], comment: "Too risky" }, { value: 4 }]);
  });

  it("refuses to send an unanswered choice and says so beside it", async () => {
    const { user, onAnswer } = setup(questionInfo([deploy]));
    await user.click(screen.getByRole("button", { name: "Submit" }));
    expect(onAnswer).not.toHaveBeenCalled();
    expect(screen.getByRole("group", { name: deploy.question })).toHaveAccessibleDescription("Pick an option, or write your own.");
  });

  it("Skip declines", async () => {
    const { user, onDecline, onAnswer } = setup(questionInfo([deploy]));
    await user.click(screen.getByRole("button", { name: "Skip" }));
    expect(onDecline).toHaveBeenCalledTimes(1);
    expect(onAnswer).not.toHaveBeenCalled();
  });

  it("shows who asks, how long it has waited and when it expires", () => {
    setup(questionInfo([deploy], { origin: ["research", "summariser"], created_at_ms: NOW - 3 * MINUTE, expires_at_ms: NOW + 125 * MINUTE }));
    expect(screen.getByText("research › summariser asks")).toBeInTheDocument();
    expect(screen.getByText("waiting 3 min")).toBeInTheDocument();
    expect(screen.getByText("expires in 2 h 5 min")).toBeInTheDocument();
  });
});

describe("keyboard", () => {
  it("number keys pick options of the focused question and Enter submits", async () => {
    const { user, onAnswer } = setup(questionInfo([deploy]));
    screen.getByRole("form").focus();
    await user.keyboard("2");
    expect(screen.getByRole("radio", { name: /Tonight/ })).toBeChecked();
    await user.keyboard("3");
    expect(screen.getByRole("radio", { name: /Never/ })).toBeChecked();
    expect(screen.getByRole("radio", { name: /Tonight/ })).not.toBeChecked();
    await user.keyboard("{Enter}");
    expect(onAnswer).toHaveBeenCalledWith([{ selected: ["Never"] }]);
  });

  it("number keys toggle options in multi-select", async () => {
    const { user, onAnswer } = setup(questionInfo([choice("Which?", ["A", "B", "C"], true)]));
    screen.getByRole("form").focus();
    await user.keyboard("1");
    await user.keyboard("3");
    await user.keyboard("1");
    expect(screen.getByRole("checkbox", { name: /^A/ })).not.toBeChecked();
    await user.keyboard("{Enter}");
    expect(onAnswer).toHaveBeenCalledWith([{ selected: ["C"] }]);
  });

  it("the number after the last option chooses Other and moves focus to its text", async () => {
    const { user } = setup(questionInfo([deploy]));
    screen.getByRole("form").focus();
    await user.keyboard("4");
    expect(screen.getByRole("radio", { name: "Other" })).toBeChecked();
    expect(screen.getByRole("textbox", { name: "Other answer" })).toHaveFocus();
    await user.keyboard("42");
    expect(screen.getByRole("textbox", { name: "Other answer" })).toHaveValue("42");
  });

  it("number keys act on the item that holds focus", async () => {
    const first = choice("First?", ["A", "B"]);
    const second = choice("Second?", ["C", "D"]);
    const { user } = setup(questionInfo([first, second]));
    screen.getByRole("radio", { name: /^C/ }).focus();
    await user.keyboard("2");
    expect(screen.getByRole("radio", { name: /^D/ })).toBeChecked();
    expect(screen.getByRole("radio", { name: /^B/ })).not.toBeChecked();
  });

  it("Shift+Enter makes a new line in a text area and Enter submits", async () => {
    const { user, onAnswer } = setup(questionInfo([freeForm("Any notes?", { type: "string" })]));
    const area = screen.getByRole("textbox", { name: "Any notes?" });
    await user.click(area);
    await user.keyboard("one{Shift>}{Enter}{/Shift}two");
    expect(area).toHaveValue("one\ntwo");
    expect(onAnswer).not.toHaveBeenCalled();
    await user.keyboard("{Enter}");
    expect(onAnswer).toHaveBeenCalledWith([{ value: "one\ntwo" }]);
  });
});

describe("after resolution the card is read-only", () => {
  it("answered: shows the answer, the comment, where it came from and Resumed", () => {
    setup(
      questionInfo([deploy], {
        status: "answered",
        outcome: { outcome: "answered", answers: [{ selected: ["Tonight"], comment: "Quiet hours" }] },
        answered_via: "notification",
        resolved_at_ms: NOW - 2 * MINUTE,
      }),
      { resumed: true },
    );
    expect(screen.queryByRole("form")).not.toBeInTheDocument();
    expect(screen.queryByRole("radio")).not.toBeInTheDocument();
    expect(screen.getByText("Answered")).toBeInTheDocument();
    expect(screen.getByRole("list", { name: "Chosen" })).toHaveTextContent("Tonight");
    expect(screen.getByText("Quiet hours")).toBeInTheDocument();
    expect(screen.getByText("via a notification")).toBeInTheDocument();
    expect(screen.getByText("2 min ago")).toBeInTheDocument();
    expect(screen.getByText("Resumed")).toBeInTheDocument();
  });

  it("answered but not yet resumed: no Resumed mark", () => {
    setup(questionInfo([deploy], { status: "answered", outcome: { outcome: "answered", answers: [{ selected: ["Now"] }] }, answered_via: "window" }));
    expect(screen.getByText("via the window")).toBeInTheDocument();
    expect(screen.queryByText("Resumed")).not.toBeInTheDocument();
  });

  it("answered with Other and a free-form value: shows both", () => {
    setup(
      questionInfo([deploy, freeForm("Severity?", { type: "string", enum: ["p1"], enumNames: ["P1 — major"] })], {
        status: "answered",
        outcome: { outcome: "answered", answers: [{ selected: [], other: "After lunch" }, { value: "p1" }] },
        answered_via: "mcp",
      }),
    );
    expect(screen.getByText("After lunch")).toBeInTheDocument();
    expect(screen.getByText("P1 — major")).toBeInTheDocument();
    expect(screen.getByText("via MCP")).toBeInTheDocument();
  });

  it("declined: shows Declined, the reason and where", () => {
    setup(questionInfo([deploy], { status: "declined", outcome: { outcome: "declined", reason: "Ask me Monday" }, answered_via: "tray" }));
    expect(screen.getByText("Declined")).toBeInTheDocument();
    expect(screen.getByText("Ask me Monday")).toBeInTheDocument();
    expect(screen.getByText("via the tray")).toBeInTheDocument();
  });

  it("expired: shows Expired and the default answer that was used", () => {
    setup(questionInfo([freeForm("Grace days?", { type: "integer" })], { status: "expired", outcome: { outcome: "expired", default_answer: [{ value: 30 }] } }), { resumed: true });
    expect(screen.getByText("Expired")).toBeInTheDocument();
    expect(screen.getByText("30")).toBeInTheDocument();
    expect(screen.getByText("The agent's default answer was used.")).toBeInTheDocument();
    expect(screen.getByText("Resumed")).toBeInTheDocument();
  });

  it("cancelled: shows Cancelled and no form", () => {
    setup(questionInfo([deploy], { status: "cancelled", outcome: { outcome: "cancelled", reason: "The session was cancelled." } }));
    expect(screen.getByText("Cancelled")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Submit" })).not.toBeInTheDocument();
  });

  it("answered via the CLI or HTTP says so", () => {
    const { view } = setup(questionInfo([deploy], { status: "answered", outcome: { outcome: "answered", answers: [{ selected: ["Now"] }] }, answered_via: "cli" }));
    expect(screen.getByText("via the CLI")).toBeInTheDocument();
    view.unmount();
    setup(questionInfo([deploy], { status: "answered", outcome: { outcome: "answered", answers: [{ selected: ["Now"] }] }, answered_via: "http" }));
    expect(screen.getByText("via HTTP")).toBeInTheDocument();
  });

  it("answered from Slack or Telegram names the person", () => {
    const { view } = setup(questionInfo([deploy], { status: "answered", outcome: { outcome: "answered", answers: [{ selected: ["Now"] }] }, answered_via: "slack", answered_by: "slack:U024BE7LH (ada)" }));
    expect(screen.getByText("via Slack (ada)")).toBeInTheDocument();
    view.unmount();
    setup(questionInfo([deploy], { status: "declined", outcome: { outcome: "declined" }, answered_via: "telegram", answered_by: "telegram:4242" }));
    expect(screen.getByText("via Telegram (4242)")).toBeInTheDocument();
  });

  it("shows an admin someone else's question without a way to answer it", () => {
    const { view } = setup(questionInfo([deploy], { only_for: "person:ada" }));
    expect(screen.getByText("When should the migration run?")).toBeInTheDocument();
    expect(screen.getByRole("note")).toHaveTextContent("Addressed to person:ada: only they can answer it.");
    expect(screen.queryByRole("radio")).toBeNull();
    expect(screen.queryByRole("button", { name: /Submit|Decline/ })).toBeNull();
    view.unmount();
    setup(questionInfo([deploy]));
    expect(screen.getByRole("radio", { name: /Now/ })).toBeInTheDocument();
    expect(screen.queryByText(/only they can answer/)).toBeNull();
  });

  it("names who asked, on a team server, and no one otherwise", () => {
    const { view } = setup(questionInfo([deploy], { asked_by: "oidc:bo (Bo <bo@example.com>)" }));
    expect(screen.getByText("asked by oidc:bo (Bo <bo@example.com>)")).toBeInTheDocument();
    view.unmount();
    setup(questionInfo([deploy]));
    expect(screen.queryByText(/asked by/)).toBeNull();
  });
});

describe("backend validation errors show beside the field they name", () => {
  const items = [deploy, freeForm("How many replicas?", { type: "integer" })];
  const invalid = (problems: { path: string; message: string }[]): SubmitResult => ({
    ok: false,
    error: { kind: "invalid_answer", message: problems[0]?.message ?? "", field: problems[0]?.path, problems },
  });

  it("maps answers[1].value to the second item's input and answers[0].selected[0] to the first item's options", async () => {
    const { user } = setup(questionInfo(items), {
      result: invalid([
        { path: "answers[0].selected[0]", message: "\"Now\" is not allowed after 17:00" },
        { path: "answers[1].value", message: "must be at most 5" },
      ]),
    });
    await user.click(screen.getByRole("radio", { name: /Now/ }));
    await user.type(screen.getByRole("spinbutton"), "9");
    await user.click(screen.getByRole("button", { name: "Submit" }));
    const replicas = screen.getByRole("spinbutton", { name: "How many replicas?" });
    expect(replicas).toHaveAttribute("aria-invalid", "true");
    expect(replicas).toHaveAccessibleDescription(/must be at most 5/);
    expect(screen.getByRole("group", { name: deploy.question })).toHaveAccessibleDescription("\"Now\" is not allowed after 17:00");
  });

  it("maps answers[0].other and answers[0].comment to those fields", async () => {
    const { user } = setup(questionInfo([deploy]), {
      result: invalid([
        { path: "answers[0].other", message: "too long" },
        { path: "answers[0].comment", message: "must not contain control characters" },
      ]),
    });
    await user.type(screen.getByRole("textbox", { name: "Other answer" }), "x");
    await user.click(screen.getByRole("button", { name: "Submit" }));
    expect(screen.getByRole("textbox", { name: "Other answer" })).toHaveAccessibleDescription("too long");
    expect(screen.getByRole("textbox", { name: /Comment/ })).toHaveAccessibleDescription("must not contain control characters");
  });

  it("shows a problem that names no item for the whole card, and clears an item's problem when it is edited", async () => {
    const { user } = setup(questionInfo(items), {
      result: invalid([
        { path: "answers", message: "expected 2 answers" },
        { path: "answers[1].value", message: "must be at most 5" },
      ]),
    });
    await user.click(screen.getByRole("radio", { name: /Now/ }));
    await user.type(screen.getByRole("spinbutton"), "9");
    await user.click(screen.getByRole("button", { name: "Submit" }));
    expect(screen.getByRole("alert")).toHaveTextContent("expected 2 answers");
    await user.type(screen.getByRole("spinbutton"), "0");
    expect(screen.getByRole("spinbutton")).not.toHaveAttribute("aria-invalid");
  });
});

describe("agent text is rendered as text", () => {
  it("shows markup in the question, header, labels and descriptions literally and creates no element from it", () => {
    const hostile = {
      question: `Pick ${HOSTILE}`,
      header: HOSTILE,
      multiSelect: false,
      options: [
        { label: HOSTILE, description: `desc ${HOSTILE}` },
        { label: "Safe", description: HOSTILE },
      ],
    };
    const { view } = setup(questionInfo([hostile], { origin: [HOSTILE] }));
    expect(view.container.querySelector("img")).toBeNull();
    expect(screen.getByText(`Pick ${HOSTILE}`)).toBeInTheDocument();
    expect(screen.getByText(HOSTILE, { selector: ".chip" })).toBeInTheDocument();
    expect(screen.getByText(HOSTILE, { selector: ".option-label" })).toBeInTheDocument();
    expect(screen.getByText(`desc ${HOSTILE}`)).toBeInTheDocument();
    expect(screen.getByText(`${HOSTILE} asks`)).toBeInTheDocument();
  });

  it("shows markup in a resolved answer literally", () => {
    const { view } = setup(
      questionInfo([deploy], { status: "answered", outcome: { outcome: "answered", answers: [{ selected: [], other: HOSTILE, comment: HOSTILE }] } }),
    );
    expect(view.container.querySelector("img")).toBeNull();
    expect(screen.getAllByText(HOSTILE)).toHaveLength(2);
  });
});

describe("option previews", () => {
  const layouts: ChoiceQuestion = {
    question: "Which layout?",
    header: "Layout",
    multiSelect: false,
    options: [
      { label: "Timeline", description: "By date", preview: "## 2.3\n\n- fixed the tray" },
      { label: "Table", description: "By change", preview: "| Change | Area |\n|---|---|\n| Tray | UI |" },
      { label: "Plain", description: "No preview" },
    ],
  };

  it("shows the preview of the option the keyboard or the mouse is on, else the chosen one's", async () => {
    const { user } = setup(questionInfo([layouts]));
    expect(screen.queryByRole("figure")).toBeNull();
    await user.hover(screen.getByRole("radio", { name: /Table/ }).closest("label")!);
    const hovered = screen.getByRole("figure", { name: "Preview of Table" });
    // The Markdown renderer loads the first time a preview shows.
    expect(await within(hovered).findByRole("table")).toHaveTextContent("Tray");
    await user.unhover(screen.getByRole("radio", { name: /Table/ }).closest("label")!);
    expect(screen.queryByRole("figure")).toBeNull();

    await user.click(screen.getByRole("radio", { name: /Timeline/ }));
    expect(screen.getByRole("figure", { name: "Preview of Timeline" })).toContainElement(screen.getByRole("heading", { name: "2.3" }));
    await user.keyboard("{ArrowDown}");
    expect(screen.getByRole("radio", { name: /Table/ })).toHaveFocus();
    expect(screen.getByRole("figure", { name: "Preview of Table" })).toBeInTheDocument();
    await user.keyboard("{ArrowDown}");
    // Arrows choose as they move; Plain has no preview, so none shows.
    expect(screen.getByRole("radio", { name: /Plain/ })).toBeChecked();
    expect(screen.queryByRole("figure")).toBeNull();
  });

  it("shows the chosen option's preview in the resolved card", async () => {
    setup(questionInfo([layouts], { status: "answered", outcome: { outcome: "answered", answers: [{ selected: ["Table"] }] }, answered_via: "window" }));
    const figure = screen.getByRole("figure", { name: "Preview of Table" });
    expect(await within(figure).findByRole("table")).toBeInTheDocument();
  });

  it("keeps a hostile preview inert", async () => {
    const hostile: ChoiceQuestion = {
      ...layouts,
      options: [
        { label: "A", description: "a", preview: `${HOSTILE}\n\n[run](javascript:alert(1)) ![x](http://127.0.0.1:1/beacon.png)` },
        { label: "B", description: "b" },
      ],
    };
    const { user, view } = setup(questionInfo([hostile]));
    await user.click(screen.getByRole("radio", { name: /^A/ }));
    const figure = screen.getByRole("figure", { name: "Preview of A" });
    await waitFor(() => expect(figure.querySelector(".md-loading")).toBeNull());
    expect(view.container.querySelector("img")).toBeNull();
    expect(within(figure).queryByRole("link")).toBeNull();
    expect(figure).toHaveTextContent("[image: x]");
  });
});

describe("a question a rule answered", () => {
  it("says which rule allowed it", () => {
    const question = questionInfo([choice("Allow Bash: npm test?", ["Allow", "Allow always", "Deny"])], {
      status: "answered",
      outcome: { outcome: "answered", answers: [{ selected: ["Allow"] }] },
      answered_via: "rule",
      answered_by: "rule 3",
      resolved_at_ms: NOW,
    });
    renderAt(<QuestionCard question={question} resumed={false} onAnswer={() => Promise.resolve({ ok: true })} onDecline={() => Promise.resolve({ ok: true })} />);
    expect(screen.getByText("Allowed by rule 3")).toBeInTheDocument();
  });
});

describe("a team inbox's question", () => {
  it("names the team inbox it waits in; a local one names none", () => {
    const { view } = setup({ ...questionInfo([deploy]), inbox: "Acme" });
    expect(screen.getByTitle("Waits in the team inbox Acme")).toHaveTextContent("Acme");
    view.unmount();
    setup(questionInfo([deploy]));
    expect(screen.queryByTitle(/Waits in the team inbox/)).toBeNull();
  });
});
