// Drives Debian's Chromium against a team server for `crates/beckon-cli/tests/team_chromium.rs`:
// two people sign in through the identity provider's own page, then act from their pages as a
// browser would let them, and a page of another site tries the same. It only reports what
// happened, as one JSON object on standard output; the Rust test judges it.
//
// Usage: node sign_in.mjs <server URL> <other site's URL> <question id>
//        node sign_in.mjs --once <server URL> <person>   (one sign-in, then its callback again)
import { chromium } from "playwright-core";

const once = process.argv[2] === "--once";
const [base, elsewhere, question] = process.argv.slice(once ? 3 : 2);
if (!base || !elsewhere || (!once && !question)) {
  console.error("usage: node sign_in.mjs <server URL> <other site's URL> <question id> | --once <server URL> <person>");
  process.exit(2);
}

const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"];
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: FLAGS });

/** Signs `who` in through the provider's page (clicking their name) in a context of their own. */
async function signIn(who) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${base}/auth/login?next=/v1/me`);
  await page.click(`a.person[data-subject="${who}"]`);
  await page.waitForURL(`${base}/v1/me`);
  const me = JSON.parse(await page.locator("body").innerText());
  const cookies = (await context.cookies(base)).map(({ name, httpOnly, sameSite, secure }) => ({ name, httpOnly, sameSite, secure }));
  return { context, page, me, cookies, script_sees: await page.evaluate(() => document.cookie) };
}

/** `fetch` from `page`, as its own script would call it. */
async function call(page, method, path, csrf, body) {
  return page.evaluate(
    async ({ url, method, csrf, body }) => {
      const headers = { "content-type": "application/json" };
      if (csrf) headers["x-csrf-token"] = csrf;
      const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: response.status, body: await response.json().catch(() => null) };
    },
    { url: `${base}${path}`, method, csrf, body },
  );
}

if (once) {
  // One sign-in as the person named: what the callback's page said, then the same callback
  // followed again (a code replayed from the browser's history).
  const who = elsewhere;
  const context = await browser.newContext();
  const page = await context.newPage();
  let callback = null;
  page.on("request", (request) => {
    if (request.url().startsWith(`${base}/auth/callback`)) callback = request.url();
  });
  await page.goto(`${base}/auth/login?next=/v1/me`);
  const [landing] = await Promise.all([page.waitForNavigation({ url: (url) => url.href.startsWith(base) }), page.click(`a.person[data-subject="${who}"]`)]);
  const first = { status: landing?.status() ?? null, url: page.url(), text: await page.locator("body").innerText() };
  const again = callback ? await page.goto(callback) : null;
  const replayed = { status: again?.status() ?? null, text: await page.locator("body").innerText() };
  const cookies = (await context.cookies(base)).map(({ name }) => name);
  await browser.close();
  process.stdout.write(`${JSON.stringify({ first, replayed, cookies, callback })}\n`);
  process.exit(0);
}

const report = {};
const ada = await signIn("ada");
const bo = await signIn("bo");
report.ada = { me: ada.me, cookies: ada.cookies, script_sees: ada.script_sees };
report.bo = { me: bo.me };

// Bo, from his own page: Ada's approval is not his to see or answer.
report.bo.pending = await call(bo.page, "GET", "/v1/questions?status=pending");
report.bo.read = await call(bo.page, "GET", `/v1/questions/${question}`);
report.bo.allow = await call(bo.page, "POST", `/v1/questions/${question}/answer`, bo.me.csrf_token, { answer: "Allow" });

// Another site's page, in Ada's browser: a fetch it sends with her cookies if it can, and a form
// posted to the server (a top-level navigation).
const other = await ada.context.newPage();
await other.goto(elsewhere);
report.cross_site_fetch = await other.evaluate(
  async ({ url }) => {
    try {
      const response = await fetch(url, {
        method: "POST",
        mode: "no-cors",
        credentials: "include",
        headers: { "content-type": "text/plain" },
        body: JSON.stringify({ answer: "Allow" }),
      });
      return { type: response.type };
    } catch (error) {
      return { error: String(error) };
    }
  },
  { url: `${base}/v1/questions/${question}/answer` },
);
const [navigation] = await Promise.all([
  other.waitForNavigation(),
  other.evaluate((url) => {
    const form = document.createElement("form");
    form.method = "POST";
    form.action = url;
    form.enctype = "text/plain";
    const field = document.createElement("input");
    field.name = '{"answer": "Allow", "x": "';
    field.value = '"}';
    form.appendChild(field);
    document.body.appendChild(form);
    form.submit();
  }, `${base}/v1/questions/${question}/answer`),
]);
report.cross_site_form = { status: navigation?.status() ?? null };

// Without the CSRF token, from her own page; then with it.
report.ada.allow_without_token = await call(ada.page, "POST", `/v1/questions/${question}/answer`, null, { answer: "Allow" });
report.ada.allow = await call(ada.page, "POST", `/v1/questions/${question}/answer`, ada.me.csrf_token, { answer: "Allow" });

// Signing out, then the same page asks who it is.
report.ada.sign_out = await call(ada.page, "POST", "/auth/logout", ada.me.csrf_token);
report.ada.after_sign_out = await call(ada.page, "GET", "/v1/me");

await browser.close();
process.stdout.write(`${JSON.stringify(report)}\n`);
