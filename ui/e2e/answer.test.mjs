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

const answerCalls = (page) => page.evaluate(() => window.__beckonMock.backend.calls.filter((call) => call.cmd === "answer").map((call) => call.args));

test("answering a card sends the right payload and the card turns read-only when the resolution event arrives", async () => {
  const { page, problems } = await openApp(harness);
  await page.evaluate(() => {
    window.__beckonMock.backend.holdAnswers = true;
  });
  const card = page.getByRole("article", { name: /deploy-bot asks/ });
  const requestId = await card.getAttribute("data-request-id");
  await card.getByRole("radio", { name: /Tonight at 02:00/ }).check();
  await card.getByRole("button", { name: "Add a comment" }).click();
  await card.getByRole("textbox", { name: /Comment/ }).fill("Tell #ops first");
  await card.getByRole("button", { name: "Submit" }).click();

  await until(page, () => window.__beckonMock.backend.calls.some((call) => call.cmd === "answer"), "the answer command");
  assert.deepEqual(await answerCalls(page), [{ requestId, answers: [{ selected: ["Tonight at 02:00"], comment: "Tell #ops first" }] }]);
  assert.equal(await card.getByRole("button", { name: "Submit" }).isDisabled(), true, "busy while the command runs");

  // The backend commits the answer; its event alone turns the card read-only.
  await page.evaluate((id) => window.__beckonMock.backend.resolve(id, { outcome: "answered", answers: [{ selected: ["Tonight at 02:00"], comment: "Tell #ops first" }] }, "window"), requestId);
  await card.getByText("Answered", { exact: true }).waitFor();
  assert.equal(await card.getByRole("radio").count(), 0);
  assert.match(await card.textContent(), /Tonight at 02:00/);
  assert.match(await card.textContent(), /via the window/);

  await page.evaluate(() => window.__beckonMock.backend.releaseHeld());
  await card.getByText("Resumed").waitFor();
  assert.match(await page.getByRole("button", { name: /Inbox/ }).textContent(), /2/);
  assert.deepEqual(problems, { errors: [], external: [] });
  await page.close();
});

test("number keys and Enter answer a card only once the person has clicked into it", async () => {
  const { page } = await openApp(harness);
  const card = page.getByRole("article", { name: /deploy-bot asks/ });
  await card.waitFor();
  await page.keyboard.press("2");
  await page.keyboard.press("Enter");
  assert.deepEqual(await answerCalls(page), [], "keys typed before the person chose a card answer nothing");
  await card.locator(".qitem [id$='-q']").first().click();
  await page.keyboard.press("2");
  await page.keyboard.press("Enter");
  await until(page, () => window.__beckonMock.backend.calls.some((call) => call.cmd === "answer"), "the answer command");
  const [call] = await answerCalls(page);
  assert.deepEqual(call.answers, [{ selected: ["Tonight at 02:00"] }]);
  await page.getByRole("article", { name: /deploy-bot asks/ }).getByText("Answered", { exact: true }).waitFor();
  await page.close();
});

test("a free-form card shows the backend's validation error beside the field", async () => {
  const { page } = await openApp(harness);
  const card = await openRow(page, { text: "How severe" });
  await card.getByRole("combobox", { name: /How severe/ }).selectOption("p1");
  await card.getByRole("textbox", { name: "Who should own the follow-up?" }).fill("not-an-email");
  await card.getByRole("button", { name: "Submit" }).click();
  const owner = card.getByRole("textbox", { name: "Who should own the follow-up?" });
  await until(page, () => document.querySelector('[aria-invalid="true"]') !== null, "the field error");
  assert.equal(await owner.getAttribute("aria-invalid"), "true");
  assert.match(await card.locator(".field-error").textContent(), /must be an email address/);
  await owner.fill("ana@example.com");
  await card.getByRole("button", { name: "Submit" }).click();
  await card.getByText("Answered", { exact: true }).waitFor();
  assert.match(await card.textContent(), /P1 — major/);
  await page.close();
});

test("a race lost to another front end shows the winning answer read-only", async () => {
  const { page } = await openApp(harness);
  await page.evaluate(() => {
    window.__beckonMock.backend.holdAnswers = true;
  });
  const card = page.getByRole("article", { name: /deploy-bot asks/ });
  const requestId = await card.getAttribute("data-request-id");
  await card.getByRole("radio", { name: /^Now/ }).check();
  await card.getByRole("button", { name: "Submit" }).click();
  await page.evaluate((id) => {
    const { backend } = window.__beckonMock;
    backend.resolve(id, { outcome: "answered", answers: [{ selected: ["Skip the migration"] }] }, "notification");
    backend.releaseHeld();
  }, requestId);
  await card.getByText(/answered elsewhere first/).waitFor();
  assert.match(await card.textContent(), /Skip the migration/);
  assert.match(await card.textContent(), /via a notification/);
  await page.close();
});
