// @vitest-environment node
import { describe, expect, it } from "vitest";
import { pending } from "../../test/builders";
import { notificationText } from "./browserNotifications";

describe("a browser notification for a question now waiting", () => {
  it("names who asks and what, as the inbox's line does", () => {
    const question = pending("q-1", 0, { agent: "release-bot", origin: ["release-bot"] });
    expect(notificationText(question)).toEqual({ title: "release-bot asks", body: "Pick · Question q-1?" });
  });

  it("an approval shows its tool and command, and the project it runs in", () => {
    const question = pending("q-2", 0, {
      agent: "claude-code",
      origin: ["claude-code"],
      request: { questions: [], approval: { tool_name: "Bash", input: { command: "make deploy" }, project: "/home/ada/shop" } } as never,
    });
    const { title, body } = notificationText(question);
    expect(body).toBe("Bash: make deploy");
    expect(title).toBe("claude-code asks · shop");
  });
});
