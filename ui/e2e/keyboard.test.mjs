// The window by keyboard alone, as key sequences: the skip link, answering from the list with an
// option key and Enter, approvals allowed and denied, the command read by scrolling it, a focus
// ring on every stop, and the live region saying what changed once.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { askLongApproval, LONG_COMMAND, openApp, startHarness, until } from "./harness.mjs";

let harness;
before(async () => {
  harness = await startHarness();
});
after(async () => {
  await harness?.close();
});

const answerCalls = (page) => page.evaluate(() => window.__beckonMock.backend.calls.filter((call) => call.cmd === "answer").map((call) => call.args));
const focused = (page) => page.evaluate(() => ({ tag: document.activeElement?.tagName.toLowerCase(), role: document.activeElement?.getAttribute("role") ?? null, text: document.activeElement?.textContent?.trim() ?? "" }));

/** Tab (from where focus is) until `want` holds for the focused element, at most `limit` times. */
async function tabTo(page, want, what, limit = 30) {
  for (let step = 0; step < limit; step += 1) {
    if (await page.evaluate(want)) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`Tab never reached ${what}`);
}

/** Moves the list's current row down to the row of `id`. */
async function walkTo(page, id) {
  for (let step = 0; step < 50; step += 1) {
    if ((await page.locator(".inbox-list").getAttribute("aria-activedescendant")) === `inbox-row-${id}`) return;
    await page.keyboard.press("j");
  }
  throw new Error(`j never reached the row ${id}`);
}

test("the first Tab reaches a skip link that puts focus on the inbox's list, from any view", async () => {
  const { page } = await openApp(harness);
  await page.keyboard.press("Tab");
  const link = page.getByRole("link", { name: "Skip to the inbox" });
  assert.deepEqual(await focused(page), { tag: "a", role: null, text: "Skip to the inbox" });
  const box = await link.boundingBox();
  assert.ok(box && box.y >= 0 && box.x >= 0 && box.height > 0, `the focused skip link is on screen (${JSON.stringify(box)})`);
  await page.keyboard.press("Enter");
  assert.equal((await focused(page)).role, "listbox");

  await page.getByRole("button", { name: "Settings" }).click();
  await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
  await link.focus();
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: "Inbox", level: 1 }).waitFor();
  await until(page, () => document.activeElement?.getAttribute("role") === "listbox", "focus on the inbox's list");
  await page.close();
});

test("from the list, an option key and Enter answer the current question, and the outcome is announced", async () => {
  const { page } = await openApp(harness);
  await page.keyboard.press("Tab");
  await page.keyboard.press("Enter");
  const card = page.getByRole("article", { name: /deploy-bot asks/ });
  const requestId = await card.getAttribute("data-request-id");
  await page.keyboard.press("2");
  assert.equal(await card.getByRole("radio", { name: /Tonight at 02:00/ }).isChecked(), true);
  assert.deepEqual(await answerCalls(page), [], "the option key only chooses");
  await page.keyboard.press("Enter");
  await until(page, () => window.__beckonMock.backend.calls.some((call) => call.cmd === "answer"), "the answer command");
  assert.deepEqual(await answerCalls(page), [{ requestId, answers: [{ selected: ["Tonight at 02:00"] }] }]);
  await until(page, () => document.querySelector("[data-announcer]")?.textContent?.startsWith("Answered: Migration") ?? false, "the outcome announced");
  await page.close();
});

test("Enter without a chosen option goes into the card's form, never onto its links", async () => {
  const { page } = await openApp(harness);
  await page.keyboard.press("Tab");
  await page.keyboard.press("Enter");
  await page.keyboard.press("Enter");
  const inForm = await page.evaluate(() => document.activeElement?.closest("form.qform") !== null && document.activeElement?.tagName === "INPUT");
  assert.ok(inForm, `focus is on a field of the form, not ${JSON.stringify(await focused(page))}`);
  assert.deepEqual(await answerCalls(page), []);
  await page.close();
});

test("an approval allowed with a, another read by scrolling its command and denied, all from the keyboard", async () => {
  const { page } = await openApp(harness);
  const first = await askLongApproval(page);
  const second = await askLongApproval(page);
  await page.locator(`.inbox-row[data-request-id-row="${second}"]`).waitFor();
  await page.keyboard.press("Tab");
  await page.keyboard.press("Enter");

  await walkTo(page, first);
  await page.locator(`.inbox-detail article[data-request-id="${first}"]`).waitFor();
  await page.keyboard.press("a");
  await until(page, () => window.__beckonMock.backend.calls.some((call) => call.cmd === "answer"), "the allow");
  assert.deepEqual((await answerCalls(page))[0], { requestId: first, answers: [{ selected: ["Allow"] }] });

  // Allowing moved the list on to the next approval: Enter goes into its card, onto the command.
  await walkTo(page, second);
  await page.locator(`.inbox-detail article[data-request-id="${second}"] .approval-preview pre`).waitFor();
  await page.keyboard.press("Enter");
  assert.deepEqual(await focused(page), { tag: "pre", role: "region", text: LONG_COMMAND });
  const code = page.locator(".inbox-detail .approval-preview pre");
  assert.equal(await code.evaluate((node) => node.scrollLeft), 0);
  for (let step = 0; step < 5; step += 1) await page.keyboard.press("ArrowRight");
  await until(page, () => (document.querySelector(".inbox-detail .approval-preview pre")?.scrollLeft ?? 0) > 0, "the command scrolled by the arrow keys");
  await page.keyboard.press("End");

  await tabTo(page, () => document.activeElement?.textContent?.trim() === "Deny", "the Deny button");
  await page.keyboard.press("Enter");
  await until(page, () => window.__beckonMock.backend.calls.filter((call) => call.cmd === "answer").length === 2, "the deny");
  assert.deepEqual((await answerCalls(page))[1], { requestId: second, answers: [{ selected: ["Deny"] }] });
  await page.close();
});

test("every Tab stop of the inbox shows a focus ring, the list's included", async () => {
  const { page } = await openApp(harness, { query: "?triage=6" });
  await page.getByRole("listbox", { name: "Pending questions" }).getByRole("option").first().waitFor();
  const seen = new Set();
  for (let step = 0; step < 45; step += 1) {
    await page.keyboard.press("Tab");
    const stop = await page.evaluate(() => {
      const node = document.activeElement;
      if (!node || node === document.body) return null;
      const ringed = (element) => {
        const style = getComputedStyle(element);
        return (style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== "none";
      };
      // The list is taller than its view: its scroller draws the ring for it.
      const shown = node.getAttribute("role") === "listbox" ? node.closest(".inbox-scroller") : node;
      // A switch draws its ring on the track beside it.
      const track = node.matches(".toggle input") ? node.parentElement?.querySelector(".toggle-track") : null;
      return { name: `${node.tagName.toLowerCase()}${node.getAttribute("role") ? `[role=${node.getAttribute("role")}]` : ""} "${(node.getAttribute("aria-label") ?? node.textContent ?? "").trim().slice(0, 40)}"`, ringed: ringed(shown) || (track ? ringed(track) : false) };
    });
    if (stop === null) continue;
    seen.add(stop.name);
    assert.ok(stop.ringed, `${stop.name} shows no focus ring`);
  }
  assert.ok([...seen].some((name) => name.includes("[role=listbox]")), `the list was a stop: ${[...seen].join(", ")}`);
  await page.close();
});

test("a new question is announced once, and a streamed reply is not announced at all", async () => {
  const { page } = await openApp(harness);
  await page.evaluate(() => {
    const region = document.querySelector("[data-announcer]");
    window.__said = [];
    new MutationObserver(() => window.__said.push(region.textContent)).observe(region, { childList: true, characterData: true, subtree: true });
  });
  const session = await page.evaluate(() => {
    const { backend } = window.__beckonMock;
    const id = backend.addSession("ops-bot", "Rotate the keys");
    backend.ask(id, { questions: [{ question: "Rotate the signing keys now?", header: "Keys", multiSelect: false, options: [{ label: "Now" }, { label: "Tonight" }] }] });
    return id;
  });
  await until(page, () => window.__said.length > 0, "an announcement");
  for (const word of ["Rotating ", "the ", "keys ", "now."]) await page.evaluate(([id, text]) => window.__beckonMock.backend.delta(id, text), [session, word]);
  await page.waitForTimeout(300);
  assert.deepEqual(await page.evaluate(() => window.__said), ["New question from ops-bot: Keys · Rotate the signing keys now?"]);
  await page.close();
});

test("Tab stays inside an open dialog, and Escape gives the focus back to the list", async () => {
  const { page } = await openApp(harness);
  await page.keyboard.press("Tab");
  await page.keyboard.press("Enter");
  await page.keyboard.press("?");
  const dialog = page.getByRole("dialog", { name: "Keyboard" });
  await dialog.waitFor();
  for (let step = 0; step < 4; step += 1) {
    await page.keyboard.press(step % 2 === 0 ? "Tab" : "Shift+Tab");
    assert.ok(await dialog.evaluate((node) => node.contains(document.activeElement)), `after ${step + 1} presses the focus is still in the dialog`);
  }
  await page.keyboard.press("Escape");
  assert.equal((await focused(page)).role, "listbox");
  await page.close();
});
