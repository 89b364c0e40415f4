// Drives Debian's Chromium through docs' team set-up, for
// `crates/beckon-cli/tests/team_walkthrough.rs`: people sign in on a third-party provider's own
// pages (oidc-provider: its login form, then its consent), each sees their share, Ada answers her
// agent's approval on the other replica, and signs out through the provider. It only reports
// what happened, as one JSON object on standard output; the Rust test judges it.
//
// Usage: node walkthrough.mjs <replica A's URL> <replica B's URL> <Ada's approval id>
import { chromium } from "playwright-core";

const [a, b, approval] = process.argv.slice(2);
if (!a || !b || !approval) {
  console.error("usage: node walkthrough.mjs <replica A's URL> <replica B's URL> <Ada's approval id>");
  process.exit(2);
}

const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"];
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: FLAGS });
const WAIT = { timeout: 20_000 };

/** Signs `who` in on the provider's login page (any password), and consents when it asks. */
async function signIn(page, who, base) {
  await page.locator('input[name="login"]').waitFor(WAIT);
  const loginPage = page.url();
  await page.fill('input[name="login"]', who);
  await page.fill('input[name="password"]', "any password will do");
  await page.click('button[type="submit"]');
  // Its consent page, the first time; then back to Beckon.
  const consent = page.getByRole("button", { name: "Continue" });
  await Promise.race([consent.waitFor(WAIT), page.waitForURL((url) => url.href.startsWith(base), WAIT)]);
  if (!page.url().startsWith(base)) await consent.click();
  return loginPage;
}

/** Opens `base` in a browser of `who`'s own, signs in there, and waits for the inbox. */
async function open(who, base) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (error) => problems.push(String(error)));
  await page.goto(`${base}/`);
  const loginPage = await signIn(page, who, base);
  await page.waitForURL(`${base}/`, WAIT);
  await page.locator(".sidebar .person-name").waitFor(WAIT);
  return { context, page, problems, loginPage };
}

/** The ids of the rows `page`'s inbox lists, after it has had a moment to list them. */
async function rows(page) {
  await page.waitForTimeout(500);
  return page.$$eval(".inbox-row", (found) => found.map((row) => row.id.replace(/^inbox-row-/, "")));
}

const report = {};

// Bo signs in on A: Ada's approval is not in his share.
const bo = await open("bo", a);
report.bo = { loginPage: bo.loginPage, name: await bo.page.locator(".sidebar .person-name").innerText(), rows: await rows(bo.page) };

// Ada signs in on A, then opens replica B: the same sign-in holds there (one database).
const ada = await open("ada", a);
report.ada = { name: await ada.page.locator(".sidebar .person-name").innerText() };
await ada.page.goto(`${b}/`);
await ada.page.locator(`#inbox-row-${approval}`).waitFor(WAIT);
report.ada.rowsOnB = await rows(ada.page);
// She allows her agent's command there.
await ada.page.locator(`#inbox-row-${approval}`).click();
const card = ada.page.locator(`article[data-request-id="${approval}"]`);
await card.getByRole("button", { name: "Allow", exact: true }).click();
await ada.page.waitForFunction((id) => document.querySelector(`article[data-request-id="${id}"]`)?.getAttribute("data-status") === "answered", approval, WAIT);

// Signing out goes through the provider, which asks, signs her out, and sends her back.
await ada.page.getByRole("button", { name: "Sign out" }).click();
await ada.page.getByRole("button", { name: "Yes, sign me out" }).waitFor(WAIT);
report.ada.providerSignOut = ada.page.url();
await ada.page.getByRole("button", { name: "Yes, sign me out" }).click();
await ada.page.waitForURL(`${b}/auth/signed-out`, WAIT);
report.ada.afterSignOut = { url: ada.page.url(), text: await ada.page.locator("main").innerText() };
report.ada.me = await ada.context.request.get(`${a}/v1/me`).then((response) => response.status());
// Opening the inbox again asks who is there: the provider forgot her too.
await ada.page.goto(`${a}/`);
await ada.page.locator('input[name="login"]').waitFor(WAIT);
report.ada.askedAgain = ada.page.url();

report.problems = { ada: ada.problems, bo: bo.problems };
await browser.close();
process.stdout.write(`${JSON.stringify(report)}\n`);
