// @vitest-environment node
import { describe, expect, it } from "vitest";
import { expiryLabel, formatDuration, shortAge, waitingLabel } from "./duration";

const MIN = 60_000;

describe("waiting labels", () => {
  it.each([
    [20_000, "waiting <1 min"],
    [3 * MIN, "waiting 3 min"],
    [60 * MIN, "waiting 1 h"],
    [125 * MIN, "waiting 2 h 5 min"],
    [26 * 60 * MIN, "waiting 1 day 2 h"],
    [5 * 24 * 60 * MIN, "waiting 5 days"],
  ])("after %i ms says %s", (elapsed, label) => {
    expect(waitingLabel(1_000_000, 1_000_000 + elapsed)).toBe(label);
  });

  it("never shows a negative wait when clocks disagree", () => {
    expect(formatDuration(-5000)).toBe("<1 min");
  });

  it("says when a question expires, and when its deadline has passed", () => {
    expect(expiryLabel(10 * MIN, 0)).toBe("expires in 10 min");
    expect(expiryLabel(0, 10)).toBe("expiring now");
  });

  it("gives lists a compact age", () => {
    expect(shortAge(0, 30_000)).toBe("now");
    expect(shortAge(0, 3 * 60 * MIN)).toBe("3 h");
    expect(shortAge(0, 49 * 60 * MIN)).toBe("2 d");
  });
});
