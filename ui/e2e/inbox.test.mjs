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

test("no card takes keyboard focus when the inbox opens", async () => {
  const { page } = await openApp(harness);
  await page.getByRole("article", { name: /^deploy-bot asks: The migration locks/ }).waitFor();
  const focused = await page.evaluate(() => document.activeElement?.closest("article")?.getAttribute("aria-label") ?? null);
  assert.equal(focused, null);
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

test("a long inbox draws the oldest cards first and the rest as they scroll near, and a link reaches any of them", async () => {
  const { page, problems } = await openApp(harness, { query: "?waiting=400" });
  const list = page.getByRole("list", { name: "Pending questions" });
  await list.getByRole("article").first().waitFor();
  assert.equal(await list.locator(":scope > li").count(), 403, "every pending question has its place");
  const drawn = await list.getByRole("article").count();
  assert.ok(drawn >= 3 && drawn < 60, `only the cards near the view are drawn (${drawn})`);

  await page.locator(".inbox-view .view-body").evaluate((body) => body.scrollTo(0, body.scrollHeight));
  const last = list.locator(":scope > li").last();
  await last.getByRole("article").waitFor();
  assert.match(await last.textContent(), /Ship release candidate 399 to the staging fleet\?/);
  assert.ok((await list.getByRole("article").count()) < 403, "the middle is still not drawn");

  const middle = await page.evaluate(() => [...document.querySelectorAll(".inbox-list > li [data-request-id]")].map((el) => el.getAttribute("data-request-id"))[200]);
  await page.evaluate((id) => window.__beckonMock.navigate({ to: "question", id }), middle);
  const target = page.locator(`.qcard-highlighted[data-request-id="${middle}"]`);
  await target.waitFor();
  assert.ok(await target.isVisible(), "the card navigated to is drawn and on screen");
  assert.deepEqual(problems, { errors: [], external: [] });
  await page.close();
});
