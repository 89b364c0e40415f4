// @vitest-environment node
import { describe, expect, it } from "vitest";
import { entry } from "../../test/builders";
import { buildRows } from "./rows";

describe("timeline rows", () => {
  it("folds a question's tool call, answer and result into its card, and pairs other calls with their results", () => {
    const rows = buildRows([
      entry(1, { kind: "user", text: "go" }),
      entry(2, { kind: "tool_use", id: "t1", name: "read_file", input: { path: "a" } }),
      entry(3, { kind: "tool_result", tool_use_id: "t1", content: "boom", is_error: true }),
      entry(4, { kind: "tool_use", id: "t2", name: "ask_user_question", input: {} }),
      entry(5, { kind: "question", request_id: "q", tool_use_id: "t2", origin: ["a"], request: { questions: [] } }),
      entry(6, { kind: "answer", request_id: "q", outcome: { outcome: "declined" } }),
      entry(7, { kind: "tool_result", tool_use_id: "t2", content: "{}", is_error: false }),
      entry(8, { kind: "assistant", text: "ok" }),
    ]);
    expect(rows.map((row) => row.kind)).toEqual(["user", "tool", "question", "assistant"]);
    expect(rows[1]).toMatchObject({ name: "read_file", result: { content: "boom", isError: true } });
  });
});
