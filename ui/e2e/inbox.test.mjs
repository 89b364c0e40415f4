import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { openApp, startHarness, until } from "./harness.mjs";

let harness;
before(async () => {
  harness = await startHarness();
});
after(async () => {
  await harness?.close();
});

test("the inbox lists the three pending questions oldest first as rows, the oldest one's card beside them", async () => {
  const { page, problems } = await openApp(harness);
  const list = page.getByRole("listbox", { name: "Pending questions" });
  const rows = list.getByRole("option");
  assert.equal(await rows.count(), 3);
  const agents = await list.locator(".inbox-row-agent").allTextContents();
  assert.deepEqual(agents, ["deploy-bot", "summariser", "triage"]);
  assert.deepEqual(await list.locator(".inbox-row-age").allTextContents(), ["2 h", "26 min", "4 min"]);
  const card = page.locator(".inbox-detail").getByRole("article");
  assert.equal(await card.locator(".qcard-origin").textContent(), "deploy-bot asks");
  assert.equal(await card.locator(".qcard-wait").textContent(), "waiting 2 h 14 min");
  assert.match(await card.textContent(), /expires in 3 h 4\d min/);
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

test("10,000 waiting questions: a windowed list, filters, search and a keyboard walk", async () => {
  const { page, problems } = await openApp(harness, { query: "?triage=10000" });
  const list = page.getByRole("listbox", { name: "Pending questions" });
  await list.getByRole("option").first().waitFor();
  assert.equal(await page.locator(".inbox-count").textContent(), "10,003 questions");
  const drawn = await list.getByRole("option").count();
  assert.ok(drawn > 5 && drawn < 200, `only the rows near the view are drawn (${drawn})`);

  const scroller = page.locator(".inbox-scroller");
  await scroller.evaluate((node) => node.scrollTo(0, node.scrollHeight));
  await until(page, () => {
    const node = document.querySelector(".inbox-scroller");
    const last = [...document.querySelectorAll(".inbox-row, .inbox-group")].map((row) => row.getBoundingClientRect().bottom).sort((a, b) => b - a)[0] ?? 0;
    return node !== null && last >= node.getBoundingClientRect().bottom - 2;
  }, "the last rows drawn");
  const atBottom = await page.locator(".inbox-row").count();
  assert.ok(atBottom > 5 && atBottom < 200, `at the bottom the DOM holds ${atBottom} rows`);

  const search = page.getByRole("searchbox", { name: "Search questions" });
  const counted = async (text) => until(page, (want) => document.querySelector(".inbox-count")?.textContent?.startsWith(want) ?? false, `the count ${text}`, text);
  await page.getByRole("combobox", { name: "Kind" }).selectOption("approval");
  await counted("3,334 of 10,003");
  await search.fill("NPM TEST");
  await counted("477 of 10,003");
  await page.getByRole("combobox", { name: "Kind" }).selectOption("all");
  await search.fill("agent-07");
  await counted("500 of 10,003");
  await search.fill("");
  await page.getByRole("combobox", { name: "Project" }).selectOption("/home/you/src/shop");
  await counted("1,667 of 10,003");
  await page.getByRole("combobox", { name: "Project" }).selectOption("");
  await counted("10,003 questions");

  // Keys typed into the search box stay there.
  await search.focus();
  await page.keyboard.type("as");
  assert.equal(await search.inputValue(), "as");
  await search.fill("");
  await page.keyboard.press("Escape");

  // A keyboard walk: each step focuses the next row, keeps it on screen and shows its card.
  await scroller.evaluate((node) => node.scrollTo(0, 0));
  await list.getByRole("option").first().click();
  const focusedId = () => page.evaluate(() => document.querySelector(".inbox-row.is-focused")?.getAttribute("data-request-id-row"));
  const shownId = () => page.evaluate(() => document.querySelector(".inbox-detail article")?.getAttribute("data-request-id"));
  const order = await list.getByRole("option").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-request-id-row")));
  for (let step = 1; step <= 3; step += 1) await page.keyboard.press("j");
  assert.equal(await focusedId(), order[3]);
  await until(page, (id) => document.querySelector(".inbox-detail article")?.getAttribute("data-request-id") === id, "the focused row's card", order[3]);
  await page.keyboard.press("ArrowUp");
  assert.equal(await focusedId(), order[2]);
  for (let step = 0; step < 40; step += 1) await page.keyboard.press("ArrowDown");
  const far = await focusedId();
  const onScreen = await page.evaluate((id) => {
    const row = document.querySelector(`.inbox-row[data-request-id-row="${id}"]`);
    const view = document.querySelector(".inbox-scroller")?.getBoundingClientRect();
    const box = row?.getBoundingClientRect();
    return box !== undefined && view !== undefined && box.top >= view.top - 1 && box.bottom <= view.bottom + 1;
  }, far);
  assert.ok(onScreen, "the focused row was scrolled into view");
  assert.equal(await shownId(), far);
  await page.keyboard.press("x");
  await page.getByRole("toolbar", { name: "Selected questions" }).getByText("1 selected").waitFor();
  await page.keyboard.press("?");
  await page.getByRole("dialog", { name: "Keyboard" }).waitFor();
  await page.keyboard.press("Escape");
  assert.equal(await page.getByRole("dialog").count(), 0);
  assert.deepEqual(await page.evaluate(() => window.__beckonMock.backend.calls.filter((call) => call.cmd === "answer" || call.cmd === "answer_batch")), []);
  assert.deepEqual(problems, { errors: [], external: [] });
  await page.close();
});

test("a link reaches a question far down a long inbox and answers nothing", async () => {
  const { page } = await openApp(harness, { query: "?waiting=400" });
  const list = page.getByRole("listbox", { name: "Pending questions" });
  await list.getByRole("option").first().waitFor();
  const id = await page.evaluate(async () => (await window.__beckonMock.backend.handle("window_command", { command: "bootstrap", args: {} })).pending[300].id);
  await page.evaluate((question) => window.__beckonMock.navigate({ to: "question", id: question }), id);
  const card = page.locator(`.qcard-highlighted[data-request-id="${id}"]`);
  await card.waitFor();
  assert.ok(await card.isVisible(), "the card navigated to is drawn and on screen");
  assert.equal(await page.evaluate(() => document.activeElement?.closest("article") ?? null), null);
  await page.keyboard.press("1");
  await page.keyboard.press("a");
  await page.keyboard.press("Enter");
  assert.deepEqual(await page.evaluate(() => window.__beckonMock.backend.calls.filter((call) => call.cmd === "answer")), []);
  await page.close();
});

test("a batch of approvals from two projects is confirmed with its commands and projects, then resolved", async () => {
  const { page, problems } = await openApp(harness, { query: "?triage=30" });
  await page.getByRole("listbox", { name: "Pending questions" }).getByRole("option").first().waitFor();
  // Group headers are drawn only near the view: scroll until each is there.
  for (const project of ["shop", "infra"]) {
    const button = page.getByRole("button", { name: `Select all in this group (${project})` });
    await page.locator(".inbox-scroller").evaluate((node) => node.scrollTo(0, 0));
    for (let step = 0; step < 20 && (await button.count()) === 0; step += 1) {
      await page.locator(".inbox-scroller").evaluate((node) => node.scrollBy(0, 300));
      await page.waitForFunction(() => true);
    }
    await button.click();
  }
  const bar = page.getByRole("toolbar", { name: "Selected questions" });
  await bar.getByText("10 selected").waitFor();
  await bar.getByRole("button", { name: "Allow once all" }).click();
  const dialog = page.getByRole("dialog", { name: "Allow once 10 approvals?" });
  await dialog.waitFor();
  assert.match(await dialog.textContent(), /from 2 projects: (shop, infra|infra, shop)/);
  assert.equal(await dialog.getByRole("list", { name: "Commands" }).getByRole("listitem").count(), 10);
  await dialog.getByRole("button", { name: "Allow once 10 approvals" }).click();
  await page.getByRole("status").filter({ hasText: "10 resolved" }).waitFor();
  const calls = await page.evaluate(() => window.__beckonMock.backend.calls.filter((call) => call.cmd === "answer_batch").map((call) => call.args));
  assert.equal(calls.length, 1);
  assert.equal(calls[0].requestIds.length, 10);
  assert.deepEqual(calls[0].decision, { decision: "allow_once" });
  assert.deepEqual(problems, { errors: [], external: [] });
  await page.close();
});

test("Settings lists the rules, adds one by hand and exports the audit log", async () => {
  const { page, problems } = await openApp(harness);
  await page.getByRole("button", { name: "Settings" }).click();
  const rules = page.getByRole("list", { name: "Rules" });
  await rules.getByText("Every Read in docs").waitFor();
  const form = page.getByRole("group", { name: "Add a rule" });
  await form.getByRole("textbox", { name: "Command prefix" }).fill("cargo test");
  await form.getByRole("textbox", { name: "Project" }).fill("api");
  await form.getByRole("button", { name: "Add the rule" }).click();
  await form.getByText("The project must be an absolute folder path.").waitFor();
  await form.getByRole("textbox", { name: "Project" }).fill("/home/you/src/api");
  await form.getByRole("button", { name: "Add the rule" }).click();
  await rules.getByText("cargo test").waitFor();
  await page.getByRole("button", { name: "Export as CSV" }).click();
  await page.getByRole("status").filter({ hasText: "Written to /home/you/Downloads/beckon-audit.csv" }).waitFor();
  assert.deepEqual(problems, { errors: [], external: [] });
  await page.close();
});
