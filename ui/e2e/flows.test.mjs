import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { openApp, startHarness, until, openRow } from "./harness.mjs";

let harness;
before(async () => {
  harness = await startHarness();
});
after(async () => {
  await harness?.close();
});

test("a new chat streams the agent's text, asks in place, and resumes after the answer", async () => {
  const { page, problems } = await openApp(harness);
  await page.getByRole("button", { name: "New chat" }).click();
  assert.equal(await page.getByRole("combobox", { name: "Agent" }).inputValue(), "assistant", "the default agent is preselected");
  await page.getByRole("combobox", { name: "Agent" }).selectOption("demo");
  await page.getByRole("textbox", { name: "First message" }).fill("Write a reply to the landlord");
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: "Write a reply to the landlord" }).waitFor();
  const starts = await page.evaluate(() => window.__beckonMock.backend.calls.filter((call) => call.cmd === "start_session").map((call) => call.args));
  assert.deepEqual(starts, [{ agent: "demo", message: "Write a reply to the landlord" }]);

  const card = page.getByRole("article", { name: /demo asks/ });
  await card.waitFor();
  assert.ok(await card.locator("form").evaluate((form) => !form.contains(document.activeElement)), "the new card does not take focus");
  await page.getByText("The agent is waiting for your answer.").waitFor();
  // Keys answer only once the person has clicked into the card.
  await card.locator(".qitem [id$='-q']").first().click();
  await page.keyboard.press("2");
  await page.keyboard.press("Enter");
  await card.getByText("Resumed").waitFor();
  await page.getByText("Thanks — that settles it. Carrying on with your answer.").waitFor();
  await page.getByRole("textbox", { name: "Message" }).waitFor();
  assert.deepEqual(problems, { errors: [], external: [] });
  await page.close();
});

test("a navigate request to a question opens its session at the card; a problem shows a banner", async () => {
  const { page } = await openApp(harness);
  const requestId = await (await openRow(page, { text: "Which sources" })).getAttribute("data-request-id");
  await page.getByRole("button", { name: "Settings" }).click();
  await page.evaluate((id) => window.__beckonMock.navigate({ to: "question", id }), requestId);
  await page.getByRole("heading", { name: "Summarise 14 sources on vector search" }).waitFor();
  await until(page, (id) => document.querySelector(`article.qcard-highlighted[data-request-id="${id}"]`) !== null, "the card highlighted", requestId);
  assert.equal(await page.evaluate(() => document.activeElement?.closest("article") ?? null), null, "a link never puts focus into a card");
  // Keys typed while a link opens the window answer nothing (focus left where it was: nowhere).
  await page.evaluate(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
  await page.keyboard.press("1");
  await page.keyboard.press("Enter");
  assert.deepEqual(await page.evaluate(() => window.__beckonMock.backend.calls.filter((call) => call.cmd === "answer")), []);

  await page.evaluate(() => window.__beckonMock.navigate({ to: "problem", message: "beckon://question/xyz is not a question id." }));
  const banner = page.getByRole("alert").filter({ hasText: "is not a question id" });
  await banner.waitFor();
  assert.equal(await page.getByRole("heading", { name: "Summarise 14 sources on vector search" }).count(), 1, "the view stays");
  await banner.getByRole("button", { name: "Dismiss" }).click();
  assert.equal(await banner.count(), 0);
  await page.close();
});

test("each navigate request to a question marks beckon:question-shown once its card is drawn, and a deep link at start does too", async () => {
  const { page } = await openApp(harness);
  const requestId = await (await openRow(page, { text: "Which sources" })).getAttribute("data-request-id");
  await page.getByRole("button", { name: "Settings" }).click();
  await page.getByRole("heading", { name: "Settings" }).waitFor();
  // When the card came into the DOM, and the marks as they are set.
  await page.evaluate((id) => {
    window.__seen = { card: null, marks: [] };
    new MutationObserver(() => {
      if (window.__seen.card === null && document.querySelector(`article[data-request-id="${id}"]`)) window.__seen.card = performance.now();
    }).observe(document.body, { childList: true, subtree: true });
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        window.__seen.marks.push({ question: entry.detail?.question, at: entry.startTime, cardInDom: document.querySelector(`article[data-request-id="${entry.detail?.question}"]`) !== null });
      }
    }).observe({ type: "mark" });
  }, requestId);
  const shown = () => page.evaluate(() => window.__seen.marks.filter((mark) => mark.question !== undefined));
  assert.deepEqual(await shown(), [], "nothing is marked before the window is sent anywhere");

  await page.evaluate((id) => window.__beckonMock.navigate({ to: "question", id }), requestId);
  await until(page, () => performance.getEntriesByName("beckon:question-shown").length === 1, "the first mark");
  const [first] = await shown();
  const card = await page.evaluate(() => window.__seen.card);
  assert.equal(first.question, requestId);
  assert.ok(first.cardInDom && card !== null && first.at >= card, `marked at ${first.at} ms, after the card came at ${card} ms`);
  assert.deepEqual(await page.evaluate(() => performance.getEntriesByName("beckon:question-shown")[0].detail), { question: requestId });

  // Sent to it again (the card already on screen): a new mark.
  await page.evaluate((id) => window.__beckonMock.navigate({ to: "question", id }), requestId);
  await until(page, () => performance.getEntriesByName("beckon:question-shown").length === 2, "a second mark");
  await page.close();

  const linked = "01933c5e-0002-7000-8000-000000000003";
  const { page: launched } = await openApp(harness, { query: `?start=question:${linked}` });
  await until(launched, () => performance.getEntriesByName("beckon:question-shown").length === 1, "the deep link's mark");
  assert.deepEqual(await launched.evaluate(() => performance.getEntriesByName("beckon:question-shown")[0].detail), { question: linked });
  assert.ok(await launched.evaluate((id) => document.querySelector(`article[data-request-id="${id}"]`) !== null, linked));
  await launched.close();
});

test("a reload comes back to the same place and draws the same pending questions", async () => {
  const { page } = await openApp(harness);
  await page.getByRole("button", { name: /Roll out v2.3/ }).click();
  await page.getByRole("heading", { name: "Roll out v2.3 to staging" }).waitFor();
  await page.reload();
  await page.getByRole("heading", { name: "Roll out v2.3 to staging" }).waitFor();
  await page.getByRole("article", { name: /deploy-bot asks/ }).waitFor();
  assert.match(await page.getByRole("button", { name: /Inbox/ }).textContent(), /3/);
  await page.close();
});

test("cancelling a waiting session cancels its question", async () => {
  const { page } = await openApp(harness);
  await page.getByRole("button", { name: /Triage GitHub issue/ }).click();
  await page.getByRole("button", { name: "Cancel session" }).click();
  await page.getByRole("button", { name: "Really cancel?" }).click();
  await page.getByText("This session was cancelled.").waitFor();
  await page.getByRole("article", { name: /triage asks/ }).getByText("Cancelled", { exact: true }).waitFor();
  assert.match(await page.getByRole("button", { name: /Inbox/ }).textContent(), /2/);
  await page.close();
});

test("settings save without ever showing a key", async () => {
  const { page } = await openApp(harness);
  await page.getByRole("button", { name: "Settings" }).click();
  const anthropic = page.getByRole("group", { name: "Anthropic" });
  assert.equal(await anthropic.getByLabel("API key", { exact: true }).inputValue(), "");
  assert.equal(await anthropic.getByText("set", { exact: true }).count(), 1);
  assert.equal(await page.getByRole("group", { name: "OpenAI-compatible" }).getByText("from environment").count(), 1);
  await anthropic.getByLabel("Model").fill("claude-opus-4");
  await page.getByLabel("Reminder after (minutes)").fill("0");
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByRole("status").filter({ hasText: "Saved" }).waitFor();
  const [saved] = await page.evaluate(() => window.__beckonMock.backend.calls.filter((call) => call.cmd === "save_settings").map((call) => call.args.settings));
  assert.deepEqual(saved.anthropic, { base_url: null, model: "claude-opus-4" }, "no api_key: the saved key is kept");
  assert.equal(saved.reminder_minutes, 0);
  await page.close();
});

test("channels show tokens only as set, pair Telegram with a code asked for, and refuse a bad Slack channel beside it", async () => {
  const { page } = await openApp(harness);
  await page.getByRole("button", { name: "Settings" }).click();
  const slack = page.getByRole("group", { name: "Slack", exact: true });
  assert.equal(await slack.getByLabel("Bot token", { exact: true }).inputValue(), "");
  assert.equal(await slack.getByText("set", { exact: true }).count(), 2);
  assert.equal(await slack.getByLabel("Channel id").inputValue(), "C04TEAMQ");
  assert.equal(await slack.getByLabel("Your member id").inputValue(), "U04ADA");
  const telegram = page.getByRole("group", { name: "Telegram", exact: true });
  await telegram.getByText("No chat is paired yet.").waitFor();
  assert.equal(await telegram.getByText("/start", { exact: false }).count(), 0, "no code until the person asks for one");
  await telegram.getByRole("button", { name: "Pair a chat" }).click();
  await telegram.getByText("/start 7QK2M9XD").waitFor();

  await slack.getByLabel("Channel id").fill("#general");
  await page.getByRole("button", { name: "Save" }).click();
  await slack.getByText("not \"#general\"", { exact: false }).waitFor();
  assert.equal(await slack.getByLabel("Channel id").getAttribute("aria-invalid"), "true");

  await slack.getByLabel("Channel id").fill("C04OTHER");
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByRole("status").filter({ hasText: "Saved" }).waitFor();
  const saves = await page.evaluate(() => window.__beckonMock.backend.calls.filter((call) => call.cmd === "save_settings").map((call) => call.args.settings));
  const saved = saves.at(-1);
  assert.deepEqual(saved.slack, { enabled: true, channel: "C04OTHER", person: "U04ADA", api_base_url: null, after_minutes: 10, agents: ["deploy-bot", "triage"] }, "no tokens: the saved ones are kept");
  assert.equal(saved.telegram.bot_token, undefined);
  await page.close();
});

test("a runtime that cannot start shows its message full-window", async () => {
  const { page } = await openApp(harness, { query: "?unavailable" });
  const fatal = page.getByRole("alert");
  await fatal.getByRole("heading", { name: "Beckon could not start" }).waitFor();
  assert.match(await fatal.textContent(), /written by a newer Beckon/);
  await page.close();
});

test("a deep link that launched the app opens its question's session", async () => {
  const { page } = await openApp(harness, { query: "?start=question:01933c5e-0002-7000-8000-000000000003" });
  await page.getByRole("heading", { name: "Triage GitHub issue #4812" }).waitFor();
  await until(page, () => document.querySelector('article.qcard-highlighted[data-request-id="01933c5e-0002-7000-8000-000000000003"]') !== null, "the linked card highlighted");
  assert.equal(await page.evaluate(() => document.activeElement?.closest("article") ?? null), null, "a link never puts focus into a card");
  await page.close();
});
