// @vitest-environment node
import { describe, expect, it } from "vitest";
import { placeProblems } from "./problems";

describe("placing backend problems", () => {
  it("maps each path to its item and part, and the rest to the card", () => {
    const placed = placeProblems(
      [
        { path: "answers[0].selected[1]", message: "a" },
        { path: "answers[1].value", message: "b" },
        { path: "answers[0].other", message: "c" },
        { path: "answers[0].comment", message: "d" },
        { path: "answers[2]", message: "e" },
        { path: "answers[7].value", message: "f" },
        { path: "", message: "g" },
      ],
      3,
    );
    expect(placed.items).toEqual({ 0: { selected: ["a"], other: ["c"], comment: ["d"] }, 1: { value: ["b"] }, 2: { item: ["e"] } });
    expect(placed.general).toEqual(["f", "g"]);
  });
});
