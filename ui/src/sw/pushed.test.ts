import { describe, expect, it } from "vitest";
import type { PushMessage } from "../bindings/PushMessage";
import { answerFor, notificationOf, outcomeOf, pageFor } from "./pushed";

const approval: PushMessage = {
  kind: "question",
  request_id: "0191a2b3-0000-7000-8000-000000000001",
  title: "claude-code asks: Bash",
  body: "Allow Claude to run this command?\nmake deploy",
  actions: [
    { action: "answer:0", title: "Allow", label: "Allow" },
    { action: "answer:2", title: "Deny", label: "Deny" },
  ],
};

const burst: PushMessage = { kind: "waiting", tag: "burst:abc", title: "claude-code in shop: 5 approvals waiting", body: "Open the inbox to answer them." };

describe("a push's notification", () => {
  it("shows a question with the buttons the server offered, tagged by the question", () => {
    const shown = notificationOf(approval);
    expect(shown.title).toBe("claude-code asks: Bash");
    expect(shown.options.tag).toBe(approval.kind === "question" ? approval.request_id : "");
    expect(shown.options.actions).toEqual([
      { action: "answer:0", title: "Allow" },
      { action: "answer:2", title: "Deny" },
    ]);
    expect(shown.options.data).toBe(approval);
  });

  it("shows a count without buttons, and opens the inbox", () => {
    const shown = notificationOf(burst);
    expect(shown.options.actions).toEqual([]);
    expect(shown.options.tag).toBe("burst:abc");
    expect(pageFor(burst)).toBe("./#/inbox");
    expect(pageFor(approval)).toBe("./#/question/0191a2b3-0000-7000-8000-000000000001");
  });
});

describe("a press on a button", () => {
  it("answers with the option the button stands for, from the notification", () => {
    expect(answerFor(approval, "answer:2")).toEqual({
      requestId: "0191a2b3-0000-7000-8000-000000000001",
      answers: [{ selected: ["Deny"] }],
      via: "notification",
    });
  });

  it("answers nothing the notification did not offer", () => {
    expect(answerFor(approval, "answer:1")).toBeNull();
    expect(answerFor(burst, "answer:0")).toBeNull();
  });

  it("is replaced by how the question ended", () => {
    const receipt = { question: {} as never, repeat: false };
    expect(outcomeOf(approval, "Allow", { receipt }).title).toBe("Allowed");
    expect(outcomeOf(approval, "Deny", { receipt }).title).toBe("Denied");
    expect(outcomeOf(approval, "North", { receipt }).title).toBe("Answered: North");
    const settled = outcomeOf(approval, "Allow", { error: { kind: "already_resolved", message: "x" } as never });
    expect(settled.title).toBe("Already answered");
    expect(settled.options.tag).toBe("0191a2b3-0000-7000-8000-000000000001");
    expect(settled.options.actions).toEqual([]);
    expect(outcomeOf(approval, "Allow", { error: { kind: "unauthorized", message: "x" } as never }).title).toBe("Sign in to answer");
    expect(outcomeOf(approval, "Allow", { error: { kind: "unavailable", message: "down" } as never }).options.body).toContain("down");
  });
});
