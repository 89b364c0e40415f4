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
  return {
    server,
    context,
    async close() {
      await context.close();
      await server.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Opens the app in a fresh page. Collects page errors and any request that leaves
 * 127.0.0.1 (there must be none), and waits until the window has drawn.
 */
export async function openApp(harness, { width = 1440, height = 900, colorScheme = "light", query = "", hash = "" } = {}) {
  const page = await harness.context.newPage();
  const problems = { errors: [], external: [] };
  page.on("pageerror", (error) => problems.errors.push(String(error)));
  page.on("console", (message) => {
    if (message.type() === "error") problems.errors.push(message.text());
  });
  page.on("request", (request) => {
    if (!request.url().startsWith(harness.server.url) && !request.url().startsWith("data:")) problems.external.push(request.url());
  });
  await page.setViewportSize({ width, height });
  await page.emulateMedia({ colorScheme, reducedMotion: "reduce" });
  await page.goto(`${harness.server.url}${query}${hash}`);
  if (!query.includes("unavailable")) await page.getByRole("navigation", { name: "Sessions" }).waitFor();
  return { page, problems };
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
