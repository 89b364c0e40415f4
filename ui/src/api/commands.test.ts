import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { afterEach, describe, expect, it } from "vitest";
import { commands, startEarly } from "./commands";

afterEach(() => clearMocks());

/** Counts the desktop's `start` calls; each reply says which call it answers. */
function countStarts(): { count: () => number } {
  let starts = 0;
  mockIPC((cmd, args) => {
    const { command } = args as { command: string };
    if (cmd === "window_command" && command === "start") {
      starts += 1;
      return { last_seq: starts };
    }
    return null;
  });
  return { count: () => starts };
}

describe("the window's first call", () => {
  it("is made as the page starts, and the first bootstrap takes its reply", async () => {
    const starts = countStarts();
    startEarly();
    expect(starts.count()).toBe(1);
    const first = await commands.bootstrap();
    expect(starts.count()).toBe(1);
    expect(first).toEqual({ surface: "desktop", bootstrap: { last_seq: 1 } });
    // A retry asks again.
    const again = await commands.bootstrap();
    expect(starts.count()).toBe(2);
    expect(again).toEqual({ surface: "desktop", bootstrap: { last_seq: 2 } });
  });

  it("without an early call, a bootstrap asks", async () => {
    const starts = countStarts();
    await commands.bootstrap();
    expect(starts.count()).toBe(1);
  });
});
