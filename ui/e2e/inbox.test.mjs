import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { openApp, startHarness } from "./harness.mjs";

let harness;
before(async () => {
  harness = await startHarness();
});
after(async () => {
  await harness?.close();
});

test("the inbox lists the three pending questions oldest first, with who asks and how long it waited", async () => {
  const { page, problems } = await openApp(harness);
  const list = page.getByRole("list", { name: "Pending questions" });
  const cards = list.getByRole("article");
  assert.equal(await cards.count(), 3);
  const origins = await list.locator(".qcard-origin").allTextContents();
  assert.deepEqual(origins, ["deploy-bot asks", "research › summariser asks", "triage asks"]);
  const waits = await list.locator(".qcard-wait").allTextContents();
  assert.deepEqual(waits, ["waiting 2 h 14 min", "waiting 26 min", "waiting 4 min"]);
  assert.match(await cards.first().textContent(), /expires in 3 h 4\d min/);
  assert.equal(await page.getByRole("button", { name: /Inbox.*3 pending/ }).count(), 1);
  assert.deepEqual(problems, { errors: [], external: [] });
  await page.close();
});

test("the oldest pending card has focus when the inbox opens", async () => {
  const { page } = await openApp(harness);
  const focused = await page.evaluate(() => document.activeElement?.closest("article")?.getAttribute("aria-label"));
  assert.match(focused ?? "", /^deploy-bot asks: The migration locks/);
  await page.close();
});

test("the sidebar lists top-level sessions with their status and hides sub-agent sessions", async () => {
  const { page } = await openApp(harness);
  const sessions = page.getByRole("navigation", { name: "Sessions" });
  const titles = await sessions.locator(".session-item-title").allTextContents();
  assert.equal(titles.length, 8);
  assert.ok(!titles.some((title) => title.startsWith("Summarise 14 sources")), "the summariser sub-agent is not listed");
  const badges = await sessions.locator(".badge").evaluateAll((nodes) => nodes.map((node) => node.getAttribute("title")));
  for (const status of ["Running", "Waiting for input", "Completed", "Failed", "Cancelled"]) assert.ok(badges.includes(status), `a ${status} badge is shown`);
  await page.close();
});
