import type { Bootstrap } from "../../bindings/Bootstrap";

/** The built-in offline demo agent the guide offers, and what it is asked. */
export const DEMO_AGENT = "poet";
export const DEMO_MESSAGE = "Write a poem about the sea";

/**
 * Whether the window opens on the getting-started guide rather than the inbox: a Beckon with
 * nothing in it yet (no question waits, no session was ever started) whose guide was never put
 * away, started without a link to follow and at no other place (a reload keeps its place).
 */
export function opensOnGuide(snapshot: Bootstrap, hash: string): boolean {
  const nowhereYet = hash === "" || hash === "#" || hash === "#/" || hash === "#/inbox";
  return (
    nowhereYet &&
    !snapshot.settings.guide_dismissed &&
    snapshot.navigate === null &&
    snapshot.pending.length === 0 &&
    snapshot.sessions.sessions.length === 0
  );
}

/** The MCP configuration other clients (Cursor, Claude Desktop, Windsurf, …) take, running `program`. */
export function mcpConfig(program: string): string {
  return ["{", '  "mcpServers": {', '    "beckon": {', `      "command": ${JSON.stringify(program)},`, '      "args": ["mcp"]', "    }", "  }", "}"].join("\n");
}

/** `text` as one shell word: as it is when that is safe, else in single quotes. */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A first question from a script or a terminal, through `program`. */
export function askExample(program: string): string {
  return `${shellWord(program)} ask "Deploy?" -o Yes -o No`;
}
