// Starts the static server and Debian's Chromium (through playwright-core) for the browser tests.
import { existsSync } from "node:fs";
import { mkdtemp, rm, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { serve } from "./server.mjs";

const here = dirname(fileURLToPath(import.meta.url));
export const DIST = join(here, "..", "dist-mock");
// A test run leaves the tree as it found it: screenshots go under target/ unless
// BECKON_UPDATE_SCREENSHOTS=1 asks for the README's own to be redrawn.
export const SCREENSHOTS =
  process.env.BECKON_UPDATE_SCREENSHOTS === "1"
    ? join(here, "..", "..", "docs", "screenshots")
    : join(here, "..", "..", "target", "screenshots");

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-sync",
];

/** One server and one browser profile for a test file. */
export async function startHarness() {
  const executablePath = process.env.CHROMIUM ?? "/usr/bin/chromium";
  if (!existsSync(executablePath)) throw new Error(`no Chromium at ${executablePath}: run \`apt-get install -y chromium\` (as root)`);
  if (!existsSync(join(DIST, "index.html"))) throw new Error(`no mock build in ${DIST}: run \`npm run build:mock\` first`);
  const server = await serve(DIST);
  const profile = await mkdtemp(join(tmpdir(), "beckon-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: FLAGS,
    viewport: { width: 1440, height: 900 },
  });
  await mkdir(SCREENSHOTS, { recursive: true });
  // Phones need contexts of their own (a mobile viewport, touch), which a persistent profile
  // cannot make: a second browser, launched only by a test file that opens a phone.
  let phoneBrowser = null;
  return {
    server,
    context,
    async phoneBrowser() {
      phoneBrowser ??= chromium.launch({ executablePath, headless: true, args: FLAGS });
      return phoneBrowser;
    },
    async close() {
      await context.close();
      await (await phoneBrowser)?.close();
      await server.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Records the page's errors and any request that leaves 127.0.0.1 (there must be none). */
function watch(harness, page) {
  const problems = { errors: [], external: [] };
  page.on("pageerror", (error) => problems.errors.push(String(error)));
  page.on("console", (message) => {
    if (message.type() === "error") problems.errors.push(message.text());
  });
  page.on("request", (request) => {
    if (!request.url().startsWith(harness.server.url) && !request.url().startsWith("data:")) problems.external.push(request.url());
  });
  return problems;
}

/**
 * Opens the app in a fresh page. Collects page errors and any request that leaves
 * 127.0.0.1 (there must be none), and waits until the window has drawn.
 */
export async function openApp(harness, { width = 1440, height = 900, colorScheme = "light", query = "", hash = "" } = {}) {
  const page = await harness.context.newPage();
  const problems = watch(harness, page);
  await page.setViewportSize({ width, height });
  await page.emulateMedia({ colorScheme, reducedMotion: "reduce" });
  await page.goto(`${harness.server.url}${query}${hash}`);
  if (!query.includes("unavailable")) await page.getByRole("navigation", { name: "Sessions" }).waitFor();
  return { page, problems };
}

/**
 * Opens the app as `phone` shows it ({ width, height, deviceScaleFactor }: a mobile viewport with
 * touch), in a context of its own, collecting problems as `openApp` does, and waits until the
 * window has drawn (the sidebar is folded away on a phone, so not for it). `close` ends the
 * context.
 */
export async function openPhone(harness, phone, { colorScheme = "light", query = "" } = {}) {
  const browser = await harness.phoneBrowser();
  const context = await browser.newContext({
    viewport: { width: phone.width, height: phone.height },
    deviceScaleFactor: phone.deviceScaleFactor,
    isMobile: true,
    hasTouch: true,
    colorScheme,
    reducedMotion: "reduce",
  });
  const page = await context.newPage();
  const problems = watch(harness, page);
  await page.goto(`${harness.server.url}${query}`);
  await page.locator(".app").waitFor();
  return { page, problems, close: () => context.close() };
}

/** Waits until `check` returns true in the page (polling), or fails with `what`. */
export async function until(page, check, what, arg) {
  try {
    await page.waitForFunction(check, arg, { timeout: 5000, polling: 50 });
  } catch {
    throw new Error(`timed out waiting for ${what}`);
  }
}

/**
 * Opens a question's card in the inbox's detail pane by clicking its row (found by its request
 * id, or by text in it) and returns the card.
 */
export async function openRow(page, { id, text }) {
  const row = id ? page.locator(`.inbox-row[data-request-id-row="${id}"]`) : page.locator(".inbox-row", { hasText: text }).first();
  await row.click();
  const cardId = id ?? (await row.getAttribute("data-request-id-row"));
  const card = page.locator(`.inbox-detail article[data-request-id="${cardId}"]`);
  await card.waitFor();
  return card;
}

export const LONG_COMMAND =
  "kubectl --context production-eu-west-1 --namespace payments rollout restart deployment/checkout-api-with-a-long-name && " +
  `curl -sS -H 'Authorization: Bearer ${"x".repeat(160)}' https://status.example.com/api/v2/components/checkout/incidents?since=2024-01-01T00:00:00Z`;

/** An agent asks to run a command wider than any card (or phone); resolves to the request id. */
export function askLongApproval(page) {
  return page.evaluate((command) => {
    const { backend } = window.__beckonMock;
    const session = backend.addSession("ops-bot", "Restart checkout in production");
    return backend.ask(session, {
      questions: [
        {
          question: `Allow Bash: ${command}?`,
          header: "Bash",
          multiSelect: false,
          options: [
            { label: "Allow", description: "Run it once", preview: `\`\`\`\n${command}\n\`\`\`` },
            { label: "Allow always", description: "Bash kubectl in this project" },
            { label: "Deny" },
          ],
        },
      ],
      approval: { tool_name: "Bash", input: { command }, project: "/home/you/src/payments", choices: ["Allow", "Allow always", "Deny"], editable_field: "command" },
    });
  }, LONG_COMMAND);
}
