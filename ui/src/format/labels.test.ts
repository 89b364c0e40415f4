import { describe, expect, it } from "vitest";
import { viaLabel } from "./labels";

describe("how an answer came", () => {
  it("names the front end and the person", () => {
    expect(viaLabel("notification")).toBe("via a notification");
    expect(viaLabel("slack", "slack:U123 (ada)")).toBe("via Slack (ada)");
    expect(viaLabel("window", "oidc:0a1b (Ada Lovelace <ada@example.com>)")).toBe("via the window (Ada Lovelace)");
    expect(viaLabel("window", "oidc:0a1b (ada@example.com)")).toBe("via the window (ada@example.com)");
  });

  it("names the rule that allowed it", () => {
    expect(viaLabel("rule", "rule 3")).toBe("Allowed by rule 3");
    expect(viaLabel("rule")).toBe("Allowed by a rule");
  });
});
