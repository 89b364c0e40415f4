// The window on phones held upright: every view fits the width, what a finger taps is at least
// 44 px each way, text is readable (12 px and up; fields 16 px, so iOS does not zoom into them),
// questions and approvals are answered by touch, and the sidebar is one button away.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { askLongApproval, openPhone, SCREENSHOTS, startHarness, until } from "./harness.mjs";

let harness;
before(async () => {
  harness = await startHarness();
});
after(async () => {
  await harness?.close();
});

const PHONES = [
  { name: "pixel7", width: 412, height: 915, deviceScaleFactor: 2.625 },
  { name: "iphone14", width: 390, height: 844, deviceScaleFactor: 3 },
];

/** Six more questions (approvals among them, in groups by project) beside the fixture's three. */
const QUERY = "?triage=6";

/**
 * Nothing is wider than the phone: the page does not scroll sideways, no card, message or row
 * overflows its box, and no element reaches past the right edge unless a box that scrolls on its
 * own (a command's code block) holds it.
 */
async function fits(page, phone, where) {
  const found = await page.evaluate(() => {
    const shown = (node) => node.checkVisibility({ visibilityProperty: true });
    const name = (node) => `${node.tagName.toLowerCase()}.${[...node.classList].join(".")}`;
    const clipped = (node) => {
      for (let box = node.parentElement; box; box = box.parentElement) {
        if (getComputedStyle(box).overflowX !== "visible") return box.getBoundingClientRect().right <= window.innerWidth + 1;
      }
      return false;
    };
    return {
      innerWidth: window.innerWidth,
      scrollWidth: document.documentElement.scrollWidth,
      overflowing: [...document.querySelectorAll(".qcard, .msg, .tool-row, .inbox-row, .batch-bar, .settings-group, .view-head, .topbar")]
        .filter((node) => shown(node) && node.scrollWidth > node.clientWidth + 1)
        .map(name),
      pastEdge: [...document.querySelectorAll("body *")]
        .filter((node) => shown(node) && node.getBoundingClientRect().right > window.innerWidth + 1 && !clipped(node))
        .map(name),
    };
  });
  assert.equal(found.innerWidth, phone.width, `${where}: laid out at the phone's width, not zoomed out to fit something wider`);
  assert.ok(found.scrollWidth <= phone.width, `${where}: the page is ${found.scrollWidth}px wide on a ${phone.width}px screen`);
  assert.deepEqual(found.overflowing, [], `${where}: no card, message or row overflows`);
  assert.deepEqual(found.pastEdge, [], `${where}: nothing reaches past the right edge`);
}

/** Every visible text is 12 px or larger, and every field 16 px or larger. */
async function readable(page, where) {
  const found = await page.evaluate(() => {
    const shown = (node) => node.checkVisibility({ visibilityProperty: true }) && !node.closest(".visually-hidden");
    const size = (node) => parseFloat(getComputedStyle(node).fontSize);
    const name = (node) => `${node.tagName.toLowerCase()}.${[...node.classList].join(".")} "${(node.textContent ?? "").trim().slice(0, 30)}"`;
    const ownText = (node) => [...node.childNodes].some((child) => child.nodeType === Node.TEXT_NODE && child.textContent.trim() !== "");
    return {
      small: [...document.querySelectorAll("body *")].filter((node) => shown(node) && ownText(node) && size(node) < 12).map((node) => `${name(node)} ${size(node)}px`),
      fields: [...document.querySelectorAll("input:not([type=checkbox], [type=radio]), select, textarea")].filter((node) => shown(node) && size(node) < 16).map((node) => `${name(node)} ${size(node)}px`),
    };
  });
  assert.deepEqual(found.small, [], `${where}: no text under 12 px`);
  assert.deepEqual(found.fields, [], `${where}: no field under 16 px (iOS would zoom into it)`);
}

/**
 * Everything a finger taps in `scope` is at least 44×44: buttons, rows, fields, menus, folds.
 * A radio or box is measured with the label that holds or names it, which is what takes the tap.
 * Links inside agent text are text and are left out.
 */
async function tappable(page, where, scope = "body") {
  const found = await page.evaluate((selector) => {
    const shown = (node) => node.checkVisibility({ visibilityProperty: true }) && !node.closest(".visually-hidden");
    const targets = [...document.querySelectorAll(selector)].flatMap((root) => [
      ...root.querySelectorAll("button, a[href]:not(.md a), input:not([type=hidden]), select, textarea, summary, [role=option]"),
    ]);
    const big = (rect) => rect.width >= 44 && rect.height >= 44;
    // The first box that is big enough, else the largest, to name in the failure.
    const box = (node) => {
      const candidates = [node];
      if (node instanceof HTMLInputElement && (node.type === "radio" || node.type === "checkbox")) candidates.push(node.closest("label"), ...node.labels);
      const rects = candidates.filter(Boolean).map((candidate) => candidate.getBoundingClientRect());
      return rects.find(big) ?? rects.reduce((best, rect) => (rect.width * rect.height > best.width * best.height ? rect : best));
    };
    const seen = targets.filter(shown);
    return {
      count: seen.length,
      small: seen
        .map((node) => ({ node, rect: box(node) }))
        .filter(({ rect }) => !big(rect))
        .map(({ node, rect }) => `${node.tagName.toLowerCase()}${node.type ? `[${node.type}]` : ""}.${[...node.classList].join(".")} "${node.getAttribute("aria-label") ?? (node.textContent ?? "").trim().slice(0, 30)}" ${Math.round(rect.width)}×${Math.round(rect.height)}`),
    };
  }, scope);
  assert.ok(found.count > 0, `${where}: something to tap`);
  assert.deepEqual(found.small, [], `${where}: every tap target is at least 44×44`);
}

/** The three checks, on the view as it is now. */
async function checkView(page, phone, where, scope) {
  await fits(page, phone, where);
  await readable(page, where);
  await tappable(page, where, scope);
}

const answerCalls = (page) => page.evaluate(() => window.__beckonMock.backend.calls.filter((call) => call.cmd === "answer").map((call) => call.args));

/**
 * Taps a row of the inbox (by text in it) and returns the card it opens in the list's place. The
 * list draws only the rows near its view, so it is scrolled, a swipe's length at a time, until
 * the row is drawn.
 */
async function tapRow(page, text) {
  const row = page.locator(".inbox-row", { hasText: text }).first();
  const scroller = page.locator(".inbox-scroller");
  const inView = async () => {
    // Two frames: the list has measured itself and drawn the rows for where it is now.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    if ((await row.count()) === 0) return false;
    return row.evaluate((node) => {
      const box = node.getBoundingClientRect();
      const view = node.closest(".inbox-scroller").getBoundingClientRect();
      return box.top >= view.top && box.bottom <= view.bottom;
    });
  };
  await scroller.evaluate((node) => node.scrollTo(0, 0));
  for (let step = 0; step < 40 && !(await inView()); step += 1) await scroller.evaluate((node) => node.scrollBy(0, 200));
  await row.tap();
  const card = page.locator(".inbox-detail article").filter({ hasText: text });
  await card.waitFor();
  return card;
}

async function backToList(page) {
  await page.getByRole("button", { name: "Back to the list" }).tap();
  await page.getByRole("listbox", { name: "Pending questions" }).waitFor();
}

async function openMenu(page) {
  await page.getByRole("button", { name: "Menu" }).tap();
  await page.getByRole("navigation", { name: "Sessions" }).waitFor();
}

for (const phone of PHONES) {
  for (const colorScheme of ["light", "dark"]) {
    test(`every view fits a ${phone.name} (${phone.width}×${phone.height}) in ${colorScheme} mode, readable and tappable`, async () => {
      const { page, problems, close } = await openPhone(harness, phone, { colorScheme, query: QUERY });
      const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      assert.equal(background === "rgb(24, 24, 27)", colorScheme === "dark", `the ${colorScheme} theme follows the system`);
      await askLongApproval(page);
      const list = page.getByRole("listbox", { name: "Pending questions" });
      await until(page, () => document.querySelector(".inbox-count")?.textContent === "10 questions", "the long approval in the inbox");

      // The inbox: groups, then its folded filters opened, then a selection and its batch bar.
      assert.equal(await page.locator(".sidebar").isVisible(), false, "the sidebar is folded away");
      await page.locator(".inbox-group").first().waitFor();
      await checkView(page, phone, "inbox");
      await page.getByRole("button", { name: "Filters" }).tap();
      await page.getByRole("combobox", { name: "Group by" }).waitFor();
      await checkView(page, phone, "inbox with its filters");
      await page.getByRole("button", { name: "Filters" }).tap();
      await page.locator(".inbox-row[data-kind=approval] .inbox-row-check").first().tap();
      await page.locator(".inbox-row[data-kind=question] .inbox-row-check").first().tap();
      const bar = page.getByRole("toolbar", { name: "Selected questions" });
      await bar.getByText("2 selected").waitFor();
      await checkView(page, phone, "inbox with a selection");
      await bar.getByRole("button", { name: "Clear selection" }).tap();

      // A card of each kind, in the list's place.
      let card = await tapRow(page, "When should it run?");
      assert.equal(await list.isVisible(), false, "the card takes the list's place");
      await checkView(page, phone, "a single-select question", ".inbox-detail");
      await backToList(page);
      card = await tapRow(page, "Which sources");
      await card.getByRole("button", { name: "Add a comment" }).tap();
      await checkView(page, phone, "a multi-select question", ".inbox-detail");
      await backToList(page);
      card = await tapRow(page, "How severe");
      await checkView(page, phone, "a free-form question", ".inbox-detail");
      await backToList(page);
      card = await tapRow(page, "kubectl --context production");
      await card.locator(".approval-preview pre").waitFor();
      await checkView(page, phone, "an approval with a long command", ".inbox-detail");
      const command = await card.locator(".approval-preview pre").evaluate((node) => ({ whole: node.scrollWidth <= node.clientWidth, whiteSpace: getComputedStyle(node).whiteSpace }));
      assert.deepEqual(command, { whole: true, whiteSpace: "pre-wrap" }, "the command wraps: its end is read without scrolling sideways");
      const allow = await card.getByRole("button", { name: "Allow", exact: true }).boundingBox();
      assert.ok(allow.y + allow.height <= phone.height, "Allow is in reach at the bottom of the screen while the long card is at its top");
      await card.getByRole("button", { name: "Edit the command before allowing" }).tap();
      await checkView(page, phone, "an approval's command being edited", ".inbox-detail");
      await backToList(page);

      // A session waiting on its card, a finished one with tool calls, and settings.
      await openMenu(page);
      await checkView(page, phone, "the sidebar", ".sidebar");
      await page.getByRole("button", { name: /Roll out v2.3/ }).tap();
      await page.getByRole("heading", { name: "Roll out v2.3 to staging" }).waitFor();
      await page.locator(".timeline .qcard").waitFor();
      await checkView(page, phone, "a session waiting for an answer", "main");
      await openMenu(page);
      await page.getByRole("button", { name: /Draft release notes/ }).tap();
      await page.getByText("read_file").first().waitFor();
      await page.locator(".tool-row summary").first().tap();
      await checkView(page, phone, "a finished session", "main");
      await openMenu(page);
      await page.getByRole("button", { name: "Settings" }).tap();
      await page.getByRole("heading", { name: "Settings" }).waitFor();
      await page.locator(".settings-group.agents").getByText("Claude Code").waitFor();
      await checkView(page, phone, "settings", "main");
      assert.deepEqual(problems, { errors: [], external: [] });
      await close();
    });
  }

  test(`on a ${phone.name}, a question and an approval are answered by touch`, async () => {
    const { page, problems, close } = await openPhone(harness, phone, { query: QUERY });
    const longApproval = await askLongApproval(page);

    let card = await tapRow(page, "When should it run?");
    const question = await card.getAttribute("data-request-id");
    await card.getByRole("radio", { name: /Tonight at 02:00/ }).tap();
    assert.equal(await card.getByRole("radio", { name: /Tonight at 02:00/ }).isChecked(), true);
    await card.getByRole("button", { name: "Submit" }).tap();
    await card.getByText("Answered", { exact: true }).waitFor();
    await backToList(page);

    card = await tapRow(page, "Which sources");
    const sources = await card.getAttribute("data-request-id");
    await card.getByText("Independent papers").tap();
    await card.getByText("Our load tests").tap();
    await card.getByRole("button", { name: "Submit" }).tap();
    await card.getByText("Answered", { exact: true }).waitFor();
    await backToList(page);

    card = await tapRow(page, "kubectl --context production");
    await card.getByRole("button", { name: "Allow", exact: true }).tap();
    await card.getByText("Answered", { exact: true }).waitFor();

    await until(page, () => window.__beckonMock.backend.calls.filter((call) => call.cmd === "answer").length === 3, "three answers");
    assert.deepEqual(await answerCalls(page), [
      { requestId: question, answers: [{ selected: ["Tonight at 02:00"] }] },
      { requestId: sources, answers: [{ selected: ["Independent papers", "Our load tests"] }] },
      { requestId: longApproval, answers: [{ selected: ["Allow"] }] },
    ]);
    assert.deepEqual(problems, { errors: [], external: [] });
    await close();
  });

  test(`on a ${phone.name}, the sidebar is a panel behind a menu button`, async () => {
    const { page, problems, close } = await openPhone(harness, phone);
    const menu = page.getByRole("button", { name: "Menu" });
    const sessions = page.getByRole("navigation", { name: "Sessions" });
    assert.equal(await menu.getAttribute("aria-expanded"), "false");
    assert.equal(await menu.getAttribute("aria-controls"), await page.locator(".sidebar").getAttribute("id"));
    assert.equal(await sessions.isVisible(), false, "folded away, the sessions are neither seen nor reached");

    // The keyboard reaches the button first after the skip link and opens the panel with it;
    // Escape closes it.
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Skip to the inbox");
    await page.keyboard.press("Tab");
    assert.equal(await menu.evaluate((node) => node === document.activeElement), true, "the menu button comes next in the tab order");
    await page.keyboard.press("Enter");
    await sessions.waitFor();
    assert.equal(await menu.getAttribute("aria-expanded"), "true");
    assert.equal(await page.locator("main").evaluate((node) => node.inert), true, "the view behind the panel is out of reach");
    await page.keyboard.press("Escape");
    await sessions.waitFor({ state: "hidden" });
    assert.equal(await menu.getAttribute("aria-expanded"), "false");
    assert.equal(await menu.evaluate((node) => node === document.activeElement), true, "focus goes back to the menu button");

    // By touch: open, see the sessions, close by tapping beside the panel.
    await menu.tap();
    await sessions.waitFor();
    const titles = await sessions.locator(".session-item-title").allTextContents();
    assert.ok(titles.includes("Roll out v2.3 to staging"), `the sessions are listed (${titles.join(", ")})`);
    const panel = await page.locator(".sidebar").boundingBox();
    assert.ok(panel.width < phone.width - 40, "the panel leaves a strip of the view to tap");
    await page.locator(".sidebar-backdrop").tap({ position: { x: phone.width - 20, y: 200 } });
    await sessions.waitFor({ state: "hidden" });

    // A session opened from the panel takes its place; the top bar's inbox returns.
    await menu.tap();
    await sessions.getByRole("button", { name: /Roll out v2.3/ }).tap();
    await page.getByRole("heading", { name: "Roll out v2.3 to staging" }).waitFor();
    assert.equal(await sessions.isVisible(), false, "going somewhere closes the panel");
    await page.getByRole("banner").getByRole("button", { name: /Inbox.*\d+ pending/ }).tap();
    await page.getByRole("listbox", { name: "Pending questions" }).waitFor();
    assert.deepEqual(problems, { errors: [], external: [] });
    await close();
  });

  test(`screenshots of a ${phone.name}`, async () => {
    const shoot = async (view, action) => {
      const { page, close } = await openPhone(harness, phone, { query: QUERY });
      await page.getByRole("listbox", { name: "Pending questions" }).waitFor();
      await action?.(page);
      await page.screenshot({ path: join(SCREENSHOTS, `phone-${phone.name}-${view}.png`) });
      await close();
    };
    await shoot("inbox");
    await shoot("question", async (page) => {
      const card = await tapRow(page, "Which sources");
      await card.getByText("Independent papers").tap();
      await card.getByText("Our load tests").tap();
    });
    await shoot("approval", async (page) => {
      await askLongApproval(page);
      const card = await tapRow(page, "kubectl --context production");
      await card.locator(".approval-preview pre").waitFor();
    });
  });
}
