// WCAG 2.1 AA by axe-core over every state of the window, in the light and the dark theme: the
// inbox with groups and a selection, each kind of card, the dialogs, a session, settings with
// their sections opened, the first-run guide, a new chat, the phone layout and the error screen.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { audit, describe } from "./axe.mjs";
import { askLongApproval, openApp, openPhone, openRow, startHarness } from "./harness.mjs";

let harness;
before(async () => {
  harness = await startHarness();
});
after(async () => {
  await harness?.close();
});

const THEMES = ["light", "dark"];
const WINDOW = { width: 1280, height: 800 };

/** Fails with every violation axe-core finds on the page as it is now. */
async function clean(page, where) {
  // Cards draw their Markdown a moment after they open: audit what the person ends up seeing.
  await page.waitForFunction(() => document.querySelector(".md-loading") === null, null, { timeout: 5000 });
  const violations = await audit(page);
  assert.equal(violations.length, 0, `${where}: ${violations.length} WCAG 2.1 AA violations\n${describe(violations)}`);
}

for (const colorScheme of THEMES) {
  test(`${colorScheme}: the inbox, grouped and with a selection, and the keys dialog`, async () => {
    const { page } = await openApp(harness, { ...WINDOW, colorScheme, query: "?triage=12" });
    const list = page.getByRole("listbox", { name: "Pending questions" });
    await list.getByRole("option").first().waitFor();
    await clean(page, `${colorScheme} inbox`);
    await page.getByRole("combobox", { name: "Kind" }).selectOption("approval");
    await list.focus();
    await page.keyboard.press("x");
    await page.keyboard.press("j");
    await page.keyboard.press("x");
    await page.getByRole("toolbar", { name: "Selected questions" }).waitFor();
    await clean(page, `${colorScheme} inbox with a selection`);
    await page.getByRole("button", { name: "Deny all" }).click();
    await page.getByRole("dialog").waitFor();
    await clean(page, `${colorScheme} the batch dialog`);
    await page.keyboard.press("Escape");
    await list.focus();
    await page.keyboard.press("?");
    await page.getByRole("dialog", { name: "Keyboard" }).waitFor();
    await clean(page, `${colorScheme} the keys dialog`);
    await page.close();
  });

  test(`${colorScheme}: each kind of card, and the deny dialog`, async () => {
    const { page } = await openApp(harness, { ...WINDOW, colorScheme });
    await openRow(page, { text: "The migration locks" });
    await clean(page, `${colorScheme} single-choice question`);
    await openRow(page, { text: "Which sources" });
    await clean(page, `${colorScheme} multi-select question`);
    await openRow(page, { text: "How severe is issue" });
    await clean(page, `${colorScheme} free-form form`);
    const long = await askLongApproval(page);
    await openRow(page, { id: long });
    await clean(page, `${colorScheme} approval with a long command`);
    await page.getByRole("button", { name: "Edit the command before allowing" }).click();
    await clean(page, `${colorScheme} approval being edited`);
    await page.getByRole("listbox", { name: "Pending questions" }).focus();
    await page.keyboard.press("d");
    await page.getByRole("dialog", { name: "Deny" }).waitFor();
    await clean(page, `${colorScheme} the deny dialog`);
    await page.close();
  });

  test(`${colorScheme}: an answered card, a session and a new chat`, async () => {
    const { page } = await openApp(harness, { ...WINDOW, colorScheme });
    const card = await openRow(page, { text: "The migration locks" });
    await card.getByRole("radio", { name: /Tonight/ }).check();
    await card.getByRole("button", { name: "Submit" }).click();
    await card.locator(".outcome").waitFor();
    await clean(page, `${colorScheme} an answered card`);

    await page.getByRole("navigation", { name: "Sessions" }).getByRole("button", { name: /Roll out v2.3/ }).click();
    await page.locator(".timeline").waitFor();
    await clean(page, `${colorScheme} a session`);

    await page.getByRole("button", { name: "New chat" }).click();
    await page.getByRole("heading", { name: "New chat" }).waitFor();
    await clean(page, `${colorScheme} a new chat`);
    await page.close();
  });

  test(`${colorScheme}: settings, with the channels on and the callback secret shown`, async () => {
    const { page } = await openApp(harness, { ...WINDOW, colorScheme });
    await page.getByRole("button", { name: "Settings" }).click();
    await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
    await clean(page, `${colorScheme} settings`);
    for (const channel of ["Slack", "Telegram"]) await page.getByRole("group", { name: channel }).getByRole("switch", { name: "Enabled" }).check();
    await page.getByRole("button", { name: "Show secret" }).click();
    await page.getByRole("button", { name: "Copy" }).waitFor();
    await clean(page, `${colorScheme} settings with their sections opened`);
    await page.close();
  });

  test(`${colorScheme}: the first-run guide, the error screen and the phone layout`, async () => {
    const guide = await openApp(harness, { ...WINDOW, colorScheme, query: "?firstrun" });
    await guide.page.getByRole("heading", { name: "Welcome to Beckon" }).waitFor();
    await clean(guide.page, `${colorScheme} first-run guide`);
    await guide.page.close();

    const broken = await openApp(harness, { ...WINDOW, colorScheme, query: "?unavailable" });
    await broken.page.getByRole("alert").first().waitFor();
    await clean(broken.page, `${colorScheme} the screen shown when Beckon cannot start`);
    await broken.page.close();

    const phone = await openPhone(harness, { width: 390, height: 844, deviceScaleFactor: 3 }, { colorScheme, query: "?triage=6" });
    await phone.page.getByRole("listbox", { name: "Pending questions" }).getByRole("option").first().waitFor();
    await clean(phone.page, `${colorScheme} phone inbox`);
    await phone.page.getByRole("listbox", { name: "Pending questions" }).getByRole("option").first().click();
    await phone.page.locator(".inbox-detail article").waitFor();
    await clean(phone.page, `${colorScheme} phone card`);
    await phone.close();
  });
}

test("asked for more contrast, secondary text is as strong as the text, and the window stays clean", async () => {
  for (const colorScheme of THEMES) {
    const { page } = await openApp(harness, { ...WINDOW, colorScheme, query: "?triage=6" });
    await page.emulateMedia({ colorScheme, reducedMotion: "reduce", contrast: "more" });
    await page.getByRole("listbox", { name: "Pending questions" }).getByRole("option").first().waitFor();
    const colours = await page.evaluate(() => ({
      text: getComputedStyle(document.querySelector(".inbox-row-summary")).color,
      age: getComputedStyle(document.querySelector(".inbox-row-age")).color,
    }));
    assert.equal(colours.age, colours.text, `${colorScheme}: a row's age is drawn as strongly as its text`);
    await clean(page, `${colorScheme} with more contrast`);
    await page.close();
  }
});

test("less motion when asked: nothing in the window transitions", async () => {
  const { page } = await openApp(harness, { ...WINDOW });
  const moving = await page.evaluate(() =>
    [...document.querySelectorAll("body *")]
      .filter((node) => getComputedStyle(node).transitionDuration.split(",").some((duration) => parseFloat(duration) > 0))
      .map((node) => node.className),
  );
  assert.deepEqual(moving, []);
  await page.emulateMedia({ reducedMotion: "no-preference" });
  const movingAfter = await page.evaluate(() => [...document.querySelectorAll(".button")].some((node) => parseFloat(getComputedStyle(node).transitionDuration) > 0));
  assert.ok(movingAfter, "without the setting, buttons do ease (so the check above can fail)");
  await page.close();
});

test("text at 200% in the smallest window loses nothing: no sideways scrolling, and a question answered", async () => {
  // The window's minimum size (720×520) at 200%: 360×260 CSS pixels, drawn at twice the density.
  const page = await (await harness.phoneBrowser()).newPage({ viewport: { width: 360, height: 260 }, deviceScaleFactor: 2, reducedMotion: "reduce" });
  await page.goto(harness.server.url);
  const list = page.getByRole("listbox", { name: "Pending questions" });
  await list.getByRole("option").first().waitFor();
  const wide = () => page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok((await wide()) <= 360, `the inbox is ${await wide()}px wide`);
  await list.getByRole("option", { name: /^deploy-bot/ }).click();
  const card = page.locator(".inbox-detail article");
  await card.waitFor();
  assert.ok((await wide()) <= 360, `the card is ${await wide()}px wide`);
  await card.getByRole("radio", { name: /Tonight at 02:00/ }).check();
  await card.getByRole("button", { name: "Submit" }).scrollIntoViewIfNeeded();
  await card.getByRole("button", { name: "Submit" }).click();
  await page.waitForFunction(() => window.__beckonMock.backend.calls.some((call) => call.cmd === "answer"));
  await page.getByRole("button", { name: "Menu" }).click();
  await page.getByRole("button", { name: "Settings" }).click();
  await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
  assert.ok((await wide()) <= 360, `settings are ${await wide()}px wide`);
  await page.close();
});

test("team inboxes, in each state, and their questions among the inbox's, in both themes", async () => {
  for (const colorScheme of THEMES) {
    const { page } = await openApp(harness, { ...WINDOW, colorScheme, query: "?team" });
    await page.locator(".inbox-row .inbox-row-team").first().waitFor();
    await clean(page, `${colorScheme} inbox with team questions`);
    await openRow(page, { text: "terraform apply" });
    await clean(page, `${colorScheme} a team inbox's approval`);
    await page.getByRole("button", { name: "Settings" }).click();
    for (const state of ["live", "signed_out", "unreachable", "signing_in"]) await page.locator(`.team-inbox[data-state=${state}]`).waitFor();
    await page.getByRole("button", { name: "Sign in again" }).scrollIntoViewIfNeeded();
    await clean(page, `${colorScheme} Settings › team inboxes, signed in, signed out, out of reach and signing in`);
    await page.close();
  }
});
