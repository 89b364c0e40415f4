// Drives Debian's Chromium against a team server that serves the window, for
// `crates/beckon-cli/tests/team_window.rs`: two people open the server's address, sign in
// through the identity provider's page, and use the same window as the desktop app's. It only
// reports what happened, as one JSON object on standard output; the Rust test judges it.
//
// Usage: node window.mjs <server URL> <Ada's approval id> <an ask-only token of Ada's>
import { createHash, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { chromium } from "playwright-core";
import { auditThemes } from "../axe.mjs";

const [base, approval, adaToken] = process.argv.slice(2);
if (!base || !approval || !adaToken) {
  console.error("usage: node window.mjs <server URL> <Ada's approval id> <an ask-only token of Ada's>");
  process.exit(2);
}

const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"];
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: FLAGS });
const WAIT = { timeout: 20_000 };

/**
 * Opens the server's address in a browser of `who`'s own: the window sends them to sign in,
 * they pick their name on the provider's page, and land in the inbox. Notifications are allowed
 * and recorded, and the page reports itself as not looked at (so it notifies).
 */
async function open(who) {
  const context = await browser.newContext();
  await context.grantPermissions(["notifications"], { origin: base });
  await context.addInitScript(() => {
    window.__notified = [];
    const Real = window.Notification;
    class Recorded extends Real {
      constructor(title, options) {
        super(title, options);
        window.__notified.push({ title, body: options?.body ?? null, tag: options?.tag ?? null });
      }
    }
    window.Notification = Recorded;
    document.hasFocus = () => false;
  });
  const page = await context.newPage();
  const problems = [];
  // Uncaught errors only: the console also logs the refusals this script provokes.
  page.on("pageerror", (error) => problems.push(String(error)));
  await page.goto(`${base}/`);
  await page.waitForURL((url) => url.pathname === "/authorize" || url.href.includes("/authorize"), WAIT);
  const signInPage = page.url();
  await page.click(`a.person[data-subject="${who}"]`);
  await page.waitForURL(`${base}/`, WAIT);
  await page.locator(".sidebar .person-name").waitFor(WAIT);
  return { context, page, problems, signInPage };
}

/** What `page`'s inbox lists: each row's id and summary. */
async function rows(page) {
  return page.$$eval(".inbox-row", (found) =>
    found.map((row) => ({ id: row.id.replace(/^inbox-row-/, ""), summary: row.querySelector(".inbox-row-summary")?.textContent ?? "" })),
  );
}

/** What `page`'s own script gets from window command `command` on the server. */
async function command(page, name, args) {
  return page.evaluate(
    async ({ name, args }) => {
      const me = await (await fetch("/v1/me")).json();
      const response = await fetch(`/v1/window/${name}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": me.csrf_token },
        body: JSON.stringify(args),
      });
      return { status: response.status, body: await response.json().catch(() => null) };
    },
    { name, args },
  );
}

const report = {};

// Ada: her inbox, with the page as a browser shows it.
const ada = await open("ada");
await ada.page.locator(".inbox-row").first().waitFor(WAIT);
report.ada = {
  signInPage: ada.signInPage,
  name: await ada.page.locator(".sidebar .person-name").innerText(),
  rows: await rows(ada.page),
  settings: await ada.page.getByRole("button", { name: "Settings" }).count(),
  newChat: await ada.page.getByRole("button", { name: "New chat" }).count(),
  signOut: await ada.page.getByRole("button", { name: "Sign out" }).count(),
};
// WCAG 2.1 AA by axe-core on each page a team shows, in both themes.
report.axe = { inbox: await auditThemes(ada.page) };

// Bo: his inbox; Ada's approval is not there, not even by its address, and the API refuses it.
const bo = await open("bo");
await bo.page.locator(".inbox-row").first().waitFor(WAIT);
report.bo = { rows: await rows(bo.page) };
await bo.page.goto(`${base}/#/question/${approval}`);
await bo.page.locator(".sidebar .person-name").waitFor(WAIT);
await bo.page.waitForTimeout(500);
report.bo.cardsForApproval = await bo.page.locator(`article[data-request-id="${approval}"]`).count();
report.bo.getQuestion = await command(bo.page, "get_question", { requestId: approval });
report.bo.allow = await command(bo.page, "answer", { requestId: approval, answers: [{ selected: ["Allow"] }] });
report.bo.desktopOnly = await command(bo.page, "rules", { includeRevoked: false });

// Ada allows her approval from its card.
await ada.page.locator(`#inbox-row-${approval}`).click();
const card = ada.page.locator(`article[data-request-id="${approval}"]`);
await card.getByRole("button", { name: "Allow", exact: true }).click();
await ada.page.waitForFunction((id) => document.querySelector(`article[data-request-id="${id}"]`)?.getAttribute("data-status") === "answered", approval, WAIT);
// Who answered comes with the resolution's event, shortly after the reply.
await ada.page
  .waitForFunction((id) => /via the window \(/.test(document.querySelector(`article[data-request-id="${id}"]`)?.textContent ?? ""), approval, { timeout: 5_000 })
  .catch(() => undefined);
report.ada.cardAfter = await card.innerText();
report.axe.answered = await auditThemes(ada.page);

// Ada's agent asks something new while her page is open: it arrives by itself, and is notified.
const asked = await fetch(`${base}/v1/questions`, {
  method: "POST",
  headers: { authorization: `Bearer ${adaToken}`, "content-type": "application/json" },
  body: JSON.stringify({ agent: "release-bot", questions: [{ question: "Tag v2.4 now?", header: "Release", multiSelect: false, options: [{ label: "Tag it" }, { label: "Wait" }] }] }),
});
const fresh = (await asked.json()).request_id;
report.fresh = { status: asked.status, id: fresh };
await ada.page.locator(`#inbox-row-${fresh}`).waitFor(WAIT);
await ada.page.waitForFunction(() => window.__notified.length > 0, null, WAIT);
report.ada.notified = await ada.page.evaluate(() => window.__notified);
// Bo's page, back on his inbox, heard nothing of Ada's new question.
await bo.page.getByRole("button", { name: /^Inbox/ }).click();
await bo.page.locator(".inbox-row").first().waitFor(WAIT);
await bo.page.waitForTimeout(1_000);
report.bo.rowsAfter = await rows(bo.page);
report.bo.notified = await bo.page.evaluate(() => window.__notified);

// Ada connects the desktop app (RFC 8252): a listener on loopback stands in for the app. Her
// press on the server's page sends the browser there with a code; the code is traded without
// the PKCE verifier (refused, and spent), then a second one with it.
const codes = [];
const app = createServer((request, response) => {
  const url = new URL(request.url, "http://127.0.0.1");
  // Only the redirect's own visits (the browser also asks this "site" for its icon).
  if (url.pathname === "/callback") codes.push({ code: url.searchParams.get("code"), state: url.searchParams.get("state") });
  response.end("Beckon is connected. You can close this tab.");
});
await new Promise((resolve) => app.listen(0, "127.0.0.1", resolve));
const redirect = `http://127.0.0.1:${app.address().port}/callback`;
async function connectApp(state) {
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const query = new URLSearchParams({ redirect_uri: redirect, state, code_challenge: challenge, code_challenge_method: "S256" });
  await ada.page.goto(`${base}/auth/app?${query}`);
  const asked = await ada.page.locator("main").innerText();
  report.axe.connectApp ??= await auditThemes(ada.page);
  await ada.page.getByRole("button", { name: "Connect" }).click();
  await ada.page.waitForURL((url) => url.href.startsWith(redirect), WAIT);
  return { verifier, asked, back: codes.find((back) => back.state === state) };
}
const trade = (body) =>
  fetch(`${base}/auth/app/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then(async (response) => ({
    status: response.status,
    body: await response.json().catch(() => null),
  }));
const first = await connectApp("first");
report.app = { asked: first.asked, state: first.back?.state };
report.app.withoutVerifier = await trade({ code: first.back?.code, redirect_uri: redirect });
report.app.thenWithIt = await trade({ code: first.back?.code, code_verifier: first.verifier, redirect_uri: redirect });
const second = await connectApp("second");
const granted = await trade({ code: second.back?.code, code_verifier: second.verifier, redirect_uri: redirect });
report.app.granted = { status: granted.status, person: granted.body?.person ?? null };
report.app.me = await fetch(`${base}/v1/me`, { headers: { authorization: `Bearer ${granted.body?.token}` } }).then((response) => response.json());
app.close();

// Signing out, from the inbox, lands on the signed-out page (this provider offers no sign-out of
// its own), not back in the inbox.
await ada.page.goto(`${base}/`);
await ada.page.locator(".sidebar .person-name").waitFor(WAIT);
await ada.page.getByRole("button", { name: "Sign out" }).click();
await ada.page.waitForURL(`${base}/auth/signed-out`, WAIT);
report.ada.afterSignOut = ada.page.url();
report.ada.signedOutPage = await ada.page.locator("main").innerText();
report.axe.signedOut = await auditThemes(ada.page);
report.ada.me = await ada.context.request.get(`${base}/v1/me`).then((response) => response.status());

report.problems = { ada: ada.problems, bo: bo.problems };
await browser.close();
process.stdout.write(`${JSON.stringify(report)}\n`);
