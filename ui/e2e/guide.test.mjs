import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { SCREENSHOTS, openApp, startHarness, until } from "./harness.mjs";

let harness;
before(async () => {
  harness = await startHarness();
});
after(async () => {
  await harness?.close();
});

test("a new Beckon opens on its guide: test notification, demo agent, and Got it for good", async () => {
  const { page, problems } = await openApp(harness, { query: "?firstrun" });
  await page.getByRole("heading", { name: "Welcome to Beckon" }).waitFor();
  assert.equal(new URL(page.url()).hash, "#/guide");
  const config = JSON.parse(await page.getByLabel("MCP configuration", { exact: true }).textContent());
  assert.deepEqual(config, { mcpServers: { beckon: { command: "/usr/bin/beckon", args: ["mcp"] } } });
  await page.screenshot({ path: join(SCREENSHOTS, "guide.png") });

  await page.getByRole("button", { name: "Send a test notification" }).click();
  await page.getByText(/The notification service showed it/).waitFor();
  // The mock presses the notification's button a moment later, as the person would.
  await page.getByText(/Your press reached Beckon/).waitFor();

  await page.getByRole("button", { name: "Got it" }).first().click();
  await page.getByRole("heading", { name: "Inbox" }).waitFor();
  await until(page, () => window.__beckonMock.backend.calls.some((call) => call.cmd === "dismiss_guide"), "the dismissal");
  await page.getByRole("button", { name: "Settings" }).click();
  await page.getByRole("button", { name: "Show the getting-started guide" }).click();
  await page.getByRole("button", { name: "Try the demo agent" }).click();
  await page.getByRole("article", { name: /poet asks/ }).waitFor();
  const starts = await page.evaluate(() => window.__beckonMock.backend.calls.filter((call) => call.cmd === "start_session").map((call) => call.args));
  assert.deepEqual(starts, [{ agent: "poet", message: "Write a poem about the sea" }]);
  assert.deepEqual(problems, { errors: [], external: [] });
  await page.close();
});
