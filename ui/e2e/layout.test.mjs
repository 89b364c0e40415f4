import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { openApp, SCREENSHOTS, startHarness, openRow } from "./harness.mjs";

let harness;
before(async () => {
  harness = await startHarness();
});
after(async () => {
  await harness?.close();
});

const SIZES = [
  { width: 800, height: 600 },
  { width: 1440, height: 900 },
];

async function noSidewaysOverflow(page, where) {
  const { scrollWidth, innerWidth, cards } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
    cards: [...document.querySelectorAll(".qcard, .msg, .tool-row")].filter((node) => node.scrollWidth > node.clientWidth + 1).length,
  }));
  assert.ok(scrollWidth <= innerWidth, `${where}: page is ${scrollWidth}px wide in a ${innerWidth}px window`);
  assert.equal(cards, 0, `${where}: no card or message overflows`);
}

for (const colorScheme of ["light", "dark"]) {
  for (const size of SIZES) {
    test(`every view fits ${size.width}×${size.height} in ${colorScheme} mode`, async () => {
      const { page, problems } = await openApp(harness, { ...size, colorScheme });
      const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      assert.equal(background === "rgb(24, 24, 27)", colorScheme === "dark", `the ${colorScheme} theme follows the system`);
      await noSidewaysOverflow(page, "inbox");
      for (const title of ["Draft release notes for 2.3", "Roll out v2.3 to staging", "Summarise last week's incidents", "Rename the billing module"]) {
        await page.getByRole("button", { name: new RegExp(title) }).click();
        await page.getByRole("heading", { name: title }).waitFor();
        await page.locator(".timeline").waitFor();
        await noSidewaysOverflow(page, title);
      }
      await page.getByRole("button", { name: "Settings" }).click();
      await page.getByRole("heading", { name: "Settings" }).waitFor();
      await noSidewaysOverflow(page, "settings");
      await page.getByRole("button", { name: "New chat" }).click();
      await page.getByRole("heading", { name: "New chat" }).waitFor();
      await noSidewaysOverflow(page, "new chat");
      assert.deepEqual(problems, { errors: [], external: [] });
      await page.close();
    });
  }
}

test("screenshots for the docs", async () => {
  const shoot = async (name, options, action) => {
    const { page } = await openApp(harness, options);
    await page.getByRole("listbox", { name: "Pending questions" }).waitFor();
    const target = (await action?.(page)) ?? page;
    await page.mouse.move(1, 1);
    await target.screenshot({ path: join(SCREENSHOTS, name) });
    await page.close();
  };
  await shoot("inbox.png", { width: 1440, height: 900, colorScheme: "light" });
  await shoot("inbox-dark.png", { width: 1440, height: 900, colorScheme: "dark" });
  await shoot("inbox-800x600.png", { width: 800, height: 600, colorScheme: "light" });
  await shoot("question-card.png", { width: 1440, height: 900, colorScheme: "light" }, async (page) => {
    const card = await openRow(page, { text: "Which sources" });
    await card.getByRole("checkbox", { name: /Independent papers/ }).check();
    await card.getByRole("checkbox", { name: /Our load tests/ }).check();
    await card.getByRole("button", { name: "Add a comment" }).click();
    await card.getByRole("textbox", { name: /Comment/ }).fill("Weigh our own numbers over vendor claims.");
    await card.scrollIntoViewIfNeeded();
    return card;
  });
  await shoot("session.png", { width: 1440, height: 900, colorScheme: "light" }, async (page) => {
    await page.getByRole("button", { name: /Draft release notes/ }).click();
    await page.getByRole("heading", { name: "Draft release notes for 2.3" }).waitFor();
    await page.getByText("read_file").first().waitFor();
    // Show the tool calls and the answered card rather than the end of the conversation.
    await page.locator(".timeline-scroll").evaluate((node) => node.scrollTo(0, 0));
    await page.getByText("changelog.d/4790.bugfix.md").first().click();
    return page;
  });
});
