import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { Answer } from "../../bindings/Answer";
import type { Approval } from "../../bindings/Approval";
import type { ChoiceQuestion } from "../../bindings/ChoiceQuestion";
import { questionInfo } from "../../../test/builders";
import { renderAt } from "../../../test/render";
import { QuestionCard } from "./QuestionCard";
import type { SubmitResult } from "./QuestionForm";

/** The question Beckon makes of `approval`; its options offer Allow always when `always`. */
function approvalQuestion(approval: Approval, preview: string, always: boolean) {
  const options = [
    { label: "Allow", description: "Allow this call once", preview },
    ...(always ? [{ label: "Allow always", description: "Allow now, and allow Bash(npm test:*) in this project" }] : []),
    { label: "Deny", description: "Refuse it" },
  ];
  const item: ChoiceQuestion = { question: "Allow Claude to run this command?", header: approval.tool_name, options, multiSelect: false };
  return questionInfo([item], { agent: "claude-code", origin: ["claude-code"], request: { questions: [item], approval } });
}

function setup(approval: Approval, preview = "```sh\nnpm test\n```", always = approval.choices?.includes("Allow always") ?? false) {
  const onAnswer = vi.fn<(answers: Answer[]) => Promise<SubmitResult>>(() => Promise.resolve({ ok: true }));
  const onDecline = vi.fn<() => Promise<SubmitResult>>(() => Promise.resolve({ ok: true }));
  const user = userEvent.setup();
  renderAt(<QuestionCard question={approvalQuestion(approval, preview, always)} resumed={false} onAnswer={onAnswer} onDecline={onDecline} />);
  return { onAnswer, onDecline, user };
}

// As Beckon serves it: with the choices it offers and the field that may be edited.
const bash: Approval = {
  tool_name: "Bash",
  input: { command: "npm test", description: "Run the tests" },
  suggestions: [{ type: "addRules", rules: [{ toolName: "Bash", ruleContent: "npm test:*" }], behavior: "allow", destination: "localSettings" }],
  project: "/home/ada/shop",
  session: "5b0c11aa-22",
  choices: ["Allow", "Allow always", "Deny"],
  editable_field: "command",
};

describe("an approval card", () => {
  it("shows the preview and where it comes from, and allows once", async () => {
    const { user, onAnswer } = setup(bash);
    expect(screen.getByRole("figure", { name: "What it would do" })).toHaveTextContent("npm test");
    expect(screen.getByText("/home/ada/shop")).toBeInTheDocument();
    expect(screen.getByText(/Allow always: Allow now, and allow Bash\(npm test:\*\)/)).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Allow" }));
    expect(onAnswer).toHaveBeenCalledWith([{ selected: ["Allow"] }]);
  });

  it("allows an edited command and says so on the button", async () => {
    const { user, onAnswer } = setup(bash);
    await user.click(screen.getByRole("button", { name: "Edit the command before allowing" }));
    const box = screen.getByRole("textbox", { name: "Command to run" });
    await user.clear(box);
    await user.type(box, "npm test -- --runInBand");
    await user.click(screen.getByRole("button", { name: "Allow edited" }));
    expect(onAnswer).toHaveBeenCalledWith([{ selected: ["Allow"], value: "npm test -- --runInBand" }]);
  });

  it("denies with the message for the agent, and leaves it to the terminal on Skip", async () => {
    const { user, onAnswer, onDecline } = setup(bash);
    await user.type(screen.getByRole("textbox", { name: /Message if you deny/ }), "Use the staging config");
    await user.click(screen.getByRole("button", { name: "Deny" }));
    expect(onAnswer).toHaveBeenCalledWith([{ selected: ["Deny"], comment: "Use the staging config" }]);
    await user.click(screen.getByRole("button", { name: "Leave to the terminal" }));
    expect(onDecline).toHaveBeenCalled();
  });

  it("offers no Allow always without suggestions and no edit for tools that cannot be edited", () => {
    setup({ tool_name: "WebFetch", input: { url: "https://example.com" }, choices: ["Allow", "Deny"] });
    expect(screen.queryByRole("button", { name: "Allow always" })).toBeNull();
    expect(screen.queryByRole("button", { name: /Edit the/ })).toBeNull();
  });

  it("offers what Beckon says: no edit when it names no field, even for a command", () => {
    setup({ ...bash, by: "Copilot", editable_field: undefined });
    expect(screen.getByRole("button", { name: "Allow always" })).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /Edit the/ })).toBeNull();
  });

  it("edits a written file's content when Beckon names that field", async () => {
    const write: Approval = { tool_name: "Write", input: { file_path: "notes.txt", content: "hi" }, choices: ["Allow", "Deny"], editable_field: "content" };
    const { user, onAnswer } = setup(write);
    await user.click(screen.getByRole("button", { name: "Edit the content before allowing" }));
    const box = screen.getByRole("textbox", { name: "Content to write" });
    await user.type(box, " there");
    await user.click(screen.getByRole("button", { name: "Allow edited" }));
    expect(onAnswer).toHaveBeenCalledWith([{ selected: ["Allow"], value: "hi there" }]);
  });

  it("offers Allow and Deny alone for an approval written before Beckon said its choices", async () => {
    const { user, onAnswer } = setup({ tool_name: "Bash", input: { command: "npm test" } }, "npm test", true);
    expect(screen.queryByRole("button", { name: "Allow always" })).toBeNull();
    expect(screen.queryByRole("button", { name: /Edit the/ })).toBeNull();
    await user.click(screen.getByRole("button", { name: "Allow" }));
    expect(onAnswer).toHaveBeenCalledWith([{ selected: ["Allow"] }]);
  });

  it("renders hostile tool input as text, never as HTML", async () => {
    setup(bash, "````sh\n<img src=x onerror=alert(1)> [x](javascript:alert(1))\n````");
    const figure = screen.getByRole("figure", { name: "What it would do" });
    // Rendered, not the text as written while the Markdown renderer loads.
    await waitFor(() => expect(figure.querySelector(".md-loading")).toBeNull());
    expect(figure.querySelector("img")).toBeNull();
    expect(figure.querySelector("a")).toBeNull();
    expect(figure).toHaveTextContent("<img src=x onerror=alert(1)>");
  });
});
