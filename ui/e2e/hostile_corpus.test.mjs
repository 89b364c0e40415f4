// Every text of the hostile-input corpus (tests/hostile/texts.json) as an agent's name, a
// session title, an assistant message and every part of a question: shown literally, inert.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import { openApp, startHarness, openRow } from "./harness.mjs";

const CORPUS = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "tests", "hostile", "texts.json");

/** The text a corpus spec describes (see tests/hostile/README.md); texts are UTF-8 only. */
function spec(value) {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(spec).join("");
  if (value.repeat !== undefined) return spec(value.repeat).repeat(value.times);
  if (value.concat !== undefined) return spec(value.concat);
  throw new Error(`not a text spec: ${JSON.stringify(value)}`);
}

const corpus = JSON.parse(readFileSync(CORPUS, "utf8"));
// Refused texts never pass the backend's checks, but the window must not rely on that.
const TEXTS = [...corpus.accepted, ...corpus.refused].map((entry) => ({ name: entry.name, text: spec(entry.text) }));
const ACTIVE = "img, script:not([src]), iframe, svg:not([aria-hidden]), style:not([data-vite-dev-id]), object, embed, a[href^='javascript']";

let harness;
before(async () => {
  harness = await startHarness();
});
after(async () => {
  await harness?.close();
});

test("hostile texts from agents are shown literally and nothing in them runs, loads or becomes an element", async () => {
  const { page, problems } = await openApp(harness, { width: 1100, height: 800 });
  const dialogs = [];
  page.on("dialog", async (dialog) => {
    dialogs.push(dialog.message());
    await dialog.dismiss();
  });
  const before = await page.evaluate((active) => document.querySelectorAll(active).length, ACTIVE);
  const asked = await page.evaluate((texts) => {
    const { backend } = window.__beckonMock;
    return texts.map(({ name, text }) => {
      const id = backend.addSession(text, `Title ${text}`);
      backend.say(id, `Said: ${text}`);
      const request = {
        questions: [
          {
            question: `Q ${name}: ${text}`,
            header: text.slice(0, 12),
            multiSelect: false,
            options: [
              { label: text, description: `Because ${text}` },
              { label: `Plain ${name}` },
            ],
          },
        ],
      };
      return { name, text, sessionId: id, requestId: backend.ask(id, request, [text]) };
    });
  }, TEXTS);

  for (const { name, text, requestId } of asked) {
    // Each question's row opens its card beside the list.
    await page.locator(`.inbox-row[data-request-id-row="${requestId}"]`).scrollIntoViewIfNeeded();
    const card = await openRow(page, { id: requestId });
    const rowText = await page.locator(`.inbox-row[data-request-id-row="${requestId}"]`).textContent();
    assert.ok(rowText.includes(`Q ${name}: ${text}`.slice(0, 40)), `${name}: the row is literal`);
    const shown = await card.textContent();
    for (const part of [`Q ${name}: ${text}`, `Because ${text}`, `${text} asks`]) {
      assert.ok(shown.includes(part), `${name}: ${JSON.stringify(part.slice(0, 60))} is shown literally`);
    }
    assert.equal(await card.locator(".chip").first().textContent(), text.slice(0, 12), `${name}: the header`);
    const labels = await card.locator("label").allTextContents();
    assert.ok(labels.some((label) => label.includes(text)), `${name}: the option label`);
  }
  const titles = await page.getByRole("navigation", { name: "Sessions" }).locator(".session-item-title").allTextContents();
  for (const { name, text } of asked) {
    assert.ok(titles.includes(`Title ${text}`), `${name}: the session title is literal`);
  }

  // A session's timeline: the assistant's message and the question card, once the text streamed in.
  const { name, text } = asked.find((entry) => entry.name === "script_after_textarea");
  await page.getByRole("searchbox", { name: "Search questions" }).fill(`Q ${name}:`);
  const opened = await openRow(page, { text: `Q ${name}:` });
  await opened.getByRole("button", { name: /Open session/ }).click();
  await page.getByText(`Said: ${text}`, { exact: true }).waitFor();
  // Rendered, not the text as written while the Markdown renderer loads.
  await page.waitForFunction(() => document.querySelector(".md-loading") === null);

  const after = await page.evaluate((active) => [...document.querySelectorAll(active)].map((node) => node.outerHTML.slice(0, 120)), ACTIVE);
  assert.equal(after.length, before, `no element was made from agent text: ${after.join(" | ")}`);
  assert.deepEqual(dialogs, [], "no script ran");
  assert.deepEqual(problems, { errors: [], external: [] }, "nothing was loaded from a text");
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), "the page does not scroll sideways");
  await page.close();
});
