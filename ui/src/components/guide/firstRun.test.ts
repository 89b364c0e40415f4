import { describe, expect, it } from "vitest";
import { MINUTE, NOW, pending, summary } from "../../../test/builders";
import { snapshot } from "../../../test/state";
import { askExample, mcpConfig, opensOnGuide, shellWord } from "./firstRun";

const fresh = (fields: Parameters<typeof snapshot>[0] = {}) => {
  const base = snapshot(fields);
  return { ...base, settings: { ...base.settings, guide_dismissed: false } };
};

describe("the first run", () => {
  it("opens a new Beckon on its guide", () => {
    expect(opensOnGuide(fresh(), "")).toBe(true);
    expect(opensOnGuide(fresh(), "#/inbox")).toBe(true);
  });

  it("never once the guide was put away, nor over what already waits, a link or another place", () => {
    expect(opensOnGuide(snapshot(), ""), "put away").toBe(false);
    expect(opensOnGuide(fresh({ pending: [pending("q-1", NOW - MINUTE)] }), ""), "a question waits").toBe(false);
    expect(opensOnGuide(fresh({ sessions: { sessions: [summary("s-1")], next: null } }), ""), "used before").toBe(false);
    expect(opensOnGuide(fresh({ navigate: { to: "inbox" } }), ""), "a link").toBe(false);
    expect(opensOnGuide(fresh(), "#/settings"), "a reload keeps its place").toBe(false);
  });
});

describe("connecting other agents", () => {
  it("gives the MCP configuration with the real path of beckon", () => {
    expect(JSON.parse(mcpConfig("/opt/Beckon Apps/beckon"))).toEqual({ mcpServers: { beckon: { command: "/opt/Beckon Apps/beckon", args: ["mcp"] } } });
  });

  it("quotes the path in the shell line only when it must", () => {
    expect(askExample("/usr/bin/beckon")).toBe('/usr/bin/beckon ask "Deploy?" -o Yes -o No');
    expect(askExample("/home/ada/my apps/beckon")).toBe(`'/home/ada/my apps/beckon' ask "Deploy?" -o Yes -o No`);
    expect(shellWord("it's")).toBe(`'it'\\''s'`);
  });
});
