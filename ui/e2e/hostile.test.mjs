import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { openApp, startHarness, openRow } from "./harness.mjs";

const HOSTILE = "<img src=x onerror=alert(1)>";
const LONG_URL = `https://example.com/${"a-very-long-path-segment".repeat(12)}?q=${"x".repeat(120)}`;

let harness;
before(async () => {
  harness = await startHarness();
});
after(async () => {
  await harness?.close();
});

/** An agent whose texts carry markup and unbroken long strings. */
async function hostileSession(page) {
  return page.evaluate(
    ({ hostile, url }) => {
      const { backend } = window.__beckonMock;
      const id = backend.addSession(hostile, `Title ${hostile}`);
      backend.say(id, `Here you go ${hostile}\n${url}`);
      backend.ask(id, {
        questions: [
          {
            question: `Open ${url} or ${hostile}?`,
            header: hostile,
            multiSelect: false,
            options: [
              { label: hostile, description: `Because ${hostile}` },
              { label: url, description: url },
            ],
          },
        ],
      }, [hostile]);
      return id;
    },
    { hostile: HOSTILE, url: LONG_URL },
  );
}

test("markup in agent text is shown literally everywhere and long strings wrap inside the card", async () => {
  const { page, problems } = await openApp(harness, { width: 800, height: 600 });
  const dialogs = [];
  page.on("dialog", async (dialog) => {
    dialogs.push(dialog.message());
    await dialog.dismiss();
  });
  await hostileSession(page);
  const card = await openRow(page, { text: `Open ${LONG_URL}` });
  const text = await card.textContent();
  assert.ok(text.includes(`Open ${LONG_URL} or ${HOSTILE}?`), "the question is literal");
  assert.ok(text.includes(`Because ${HOSTILE}`), "the description is literal");
  assert.equal(await card.locator(".chip").textContent(), HOSTILE, "the header is literal");
  assert.equal(await page.locator("img").count(), 0, "no element was made from agent text");
  const overflow = await card.evaluate((node) => node.scrollWidth - node.clientWidth);
  assert.ok(overflow <= 0, `the card does not overflow (by ${overflow}px)`);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), "the page does not scroll sideways");

  await card.getByRole("button", { name: /Open session/ }).click();
  await page.getByText(`Here you go ${HOSTILE}`, { exact: false }).waitFor();
  // Rendered, not the text as written while the Markdown renderer loads.
  await page.waitForFunction(() => document.querySelector(".md-loading") === null);
  assert.equal(await page.locator("img").count(), 0);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));
  assert.deepEqual(dialogs, []);
  assert.deepEqual(problems, { errors: [], external: [] });
  await page.close();
});
