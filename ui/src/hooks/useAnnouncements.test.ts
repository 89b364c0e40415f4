import { describe, expect, it } from "vitest";
import type { QuestionStatus } from "../bindings/QuestionStatus";
import type { TriageRow } from "../state/triage";
import { announcement } from "./useAnnouncements";

function row(id: string, status: QuestionStatus, agent = "deploy-bot", summary = `Question ${id}?`): TriageRow {
  return { id, agent, summary, question: { status } } as unknown as TriageRow;
}

describe("announcement", () => {
  it("says a new question once, with who asks and what", () => {
    const before = new Map<string, QuestionStatus>([["a", "pending"]]);
    expect(announcement(before, [row("a", "pending"), row("b", "pending", "ops-bot", "Restart checkout?")])).toBe("New question from ops-bot: Restart checkout?");
    expect(announcement(new Map([["a", "pending"], ["b", "pending"]]), [row("a", "pending"), row("b", "pending")])).toBeNull();
  });

  it("counts questions that arrive together", () => {
    expect(announcement(new Map(), [row("a", "pending"), row("b", "pending"), row("c", "pending")])).toBe("3 new questions.");
  });

  it("says the outcome of a question that was pending, and nothing for one already resolved", () => {
    expect(announcement(new Map([["a", "pending"]]), [row("a", "answered")])).toBe("Answered: Question a?");
    expect(announcement(new Map([["a", "answered"]]), [row("a", "answered")])).toBeNull();
    expect(announcement(new Map([["a", "pending"]]), [row("a", "declined"), row("b", "pending")])).toBe("New question from deploy-bot: Question b? Declined: Question a?");
  });
});
