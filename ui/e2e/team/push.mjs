// Drives Debian's Chromium against a team server that serves the window, for
// `crates/beckon-cli/tests/team_push.rs`: the window as an installed web app with pushes. It
// only reports what happened, as one JSON object on standard output; the Rust test judges it.
//
// A push service stand-in runs here on loopback, in place of the browser's own (Chromium's is
// Google's, out of reach): the page's `pushManager.subscribe` hands out a subscription to it,
// with keys made here as a browser makes them. Whatever the server pushes there is checked
// with code that is not Beckon's — its VAPID token with Node's crypto (RFC 8292), its payload
// decrypted with `http_ece` (RFC 8291) — and the decrypted message is then delivered to the
// page's service worker through the DevTools protocol, as a push service's would be.
//
// Usage: node push.mjs <server URL> <an ask-only token of Ada's> <browser profile folder>
//        node push.mjs --offline <server URL> <browser profile folder>   (the server is stopped)
import { createECDH, createPublicKey, randomBytes, verify } from "node:crypto";
import { copyFileSync, mkdirSync } from "node:fs";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import ece from "http_ece";
import { chromium } from "playwright-core";

const offline = process.argv[2] === "--offline";
const [base, second, third] = process.argv.slice(offline ? 3 : 2);
const profile = offline ? second : third;
const adaToken = offline ? null : second;
if (!base || !profile || (!offline && !adaToken)) {
  console.error("usage: node push.mjs <server URL> <token> <profile> | --offline <server URL> <profile>");
  process.exit(2);
}

const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"];
const WAIT = { timeout: 20_000 };
const PHONE = { viewport: { width: 412, height: 915 }, deviceScaleFactor: 2.625, isMobile: true, hasTouch: true };
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: FLAGS,
  ...PHONE,
});
const page = context.pages()[0] ?? (await context.newPage());
const problems = [];
page.on("pageerror", (error) => problems.push(String(error)));

if (offline) {
  // The server is down: the installed app still opens, from its service worker, and says so.
  const response = await page.goto(`${base}/`).catch((error) => ({ failed: String(error) }));
  const fromWorker = typeof response?.fromServiceWorker === "function" ? response.fromServiceWorker() : false;
  await page.getByText(/cannot be reached/).first().waitFor(WAIT).catch(() => undefined);
  const text = await page.locator("body").innerText().catch(() => "");
  await context.close();
  process.stdout.write(`${JSON.stringify({ fromWorker, status: response?.status?.() ?? null, text, problems })}\n`);
  process.exit(0);
}

const b64url = (bytes) => Buffer.from(bytes).toString("base64url");

// The browser's push keys, as `pushManager.subscribe` makes them (RFC 8291).
const browserKey = createECDH("prime256v1");
browserKey.generateKeys();
const authSecret = randomBytes(16);

// The push service stand-in.
const received = [];
let answerWith = 201;
const service = createServer((request, response) => {
  const chunks = [];
  request.on("data", (chunk) => chunks.push(chunk));
  request.on("end", () => {
    received.push({ path: request.url, headers: request.headers, body: Buffer.concat(chunks) });
    response.writeHead(answerWith).end();
  });
});
await new Promise((resolve) => service.listen(0, "127.0.0.1", resolve));
const serviceOrigin = `http://127.0.0.1:${service.address().port}`;
const endpoint = `${serviceOrigin}/push/ada-phone`;

/**
 * A push as the stand-in judges it, with no code of Beckon's: the VAPID token (ES256 over
 * `header.claims`, by the key the header names; for this service's origin; not past 24 hours)
 * and the message, decrypted with the browser's private key and secret.
 */
function judge(push, now = Date.now() / 1000) {
  const authorization = push.headers.authorization ?? "";
  const match = /^vapid t=([^,]+), k=(.+)$/.exec(authorization);
  const verdict = { authorization: Boolean(match), topic: push.headers.topic ?? null, ttl: push.headers.ttl ?? null, encoding: push.headers["content-encoding"] ?? null };
  if (match) {
    const [token, key] = [match[1], match[2]];
    const [header, claims, signature] = token.split(".");
    const point = Buffer.from(key, "base64url");
    const publicKey = createPublicKey({
      key: { kty: "EC", crv: "P-256", x: b64url(point.subarray(1, 33)), y: b64url(point.subarray(33, 65)) },
      format: "jwk",
    });
    verdict.key = key;
    verdict.header = JSON.parse(Buffer.from(header, "base64url").toString());
    verdict.claims = JSON.parse(Buffer.from(claims, "base64url").toString());
    verdict.signed = verify("sha256", Buffer.from(`${header}.${claims}`), { key: publicKey, dsaEncoding: "ieee-p1363" }, Buffer.from(signature, "base64url"));
    verdict.forgedRefused = !verify("sha256", Buffer.from(`${header}.${claims}x`), { key: publicKey, dsaEncoding: "ieee-p1363" }, Buffer.from(signature, "base64url"));
    verdict.forServiceOrigin = verdict.claims.aud === serviceOrigin;
    verdict.fresh = verdict.claims.exp > now && verdict.claims.exp <= now + 24 * 3600;
  }
  verdict.plaintextInTransit = push.body.includes(Buffer.from("make "));
  try {
    verdict.message = ece.decrypt(push.body, { version: "aes128gcm", privateKey: browserKey, authSecret: b64url(authSecret) }).toString("utf8");
  } catch (error) {
    verdict.decryptError = String(error);
  }
  return verdict;
}

async function pushes(count) {
  const until = Date.now() + WAIT.timeout;
  while (received.length < count && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
  return received.length;
}

// The page's push manager hands out a subscription to the stand-in (the browser's own push
// service is out of reach); what it was asked to subscribe with is kept for the report.
await context.addInitScript(
  ({ endpoint, p256dh, auth }) => {
    let current = null;
    const made = (options) => ({
      endpoint,
      expirationTime: null,
      options,
      getKey: () => null,
      toJSON: () => ({ endpoint, expirationTime: null, keys: { p256dh, auth } }),
      unsubscribe: async () => {
        current = null;
        return true;
      },
    });
    PushManager.prototype.subscribe = async function (options) {
      const key = new Uint8Array(options.applicationServerKey);
      window.__subscribedWith = btoa(String.fromCharCode(...key)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
      current = made(options);
      return current;
    };
    PushManager.prototype.getSubscription = async function () {
      return current;
    };
  },
  { endpoint, p256dh: b64url(browserKey.getPublicKey()), auth: b64url(authSecret) },
);
await context.grantPermissions(["notifications"], { origin: base });

const report = { problems };
await page.goto(`${base}/`);
await page.waitForURL((url) => url.href.includes("/authorize"), WAIT);
await page.click('a.person[data-subject="ada"]');
await page.waitForURL(`${base}/`, WAIT);
await page.locator(".sidebar .person-name").waitFor({ ...WAIT, state: "attached" });

// The service worker, registered by the page, and the manifest: installable.
report.worker = await page.evaluate(async () => {
  const registration = await navigator.serviceWorker.ready;
  return { scope: registration.scope, script: registration.active?.scriptURL ?? null };
});
const cdp = await context.newCDPSession(page);
report.installability = (await cdp.send("Page.getInstallabilityErrors")).installabilityErrors;
const manifest = await cdp.send("Page.getAppManifest");
report.manifest = { url: manifest.url, errors: manifest.errors, parsed: manifest.parsed ?? null };

// The phone's inbox, a question and an approval, answered and allowed by touch.
const shots = new URL("../../../target/screenshots/", import.meta.url);
mkdirSync(shots, { recursive: true });
/** A screenshot once the page's Markdown is drawn (it loads on demand, showing the raw text meanwhile). */
async function shoot(name, markdown = false) {
  if (markdown) await page.locator(".inbox-detail .md").first().waitFor(WAIT);
  await page.locator(".md-loading").first().waitFor({ ...WAIT, state: "detached" });
  const path = fileURLToPath(new URL(`server-phone-${name}.png`, shots));
  await page.screenshot({ path });
  // The book shows them (`BECKON_UPDATE_SCREENSHOTS=1` redraws its screenshots).
  if (process.env.BECKON_UPDATE_SCREENSHOTS === "1" && name !== "question") copyFileSync(path, fileURLToPath(new URL(`../../../docs/screenshots/phone-${name}.png`, import.meta.url)));
}
/** Taps the inbox row holding `text`: its card, in the list's place. */
async function tapRow(text) {
  await page.locator(".inbox-row").filter({ hasText: text }).tap();
  const card = page.locator(".inbox-detail article").filter({ hasText: text });
  await card.waitFor(WAIT);
  return card;
}
await page.getByRole("listbox", { name: "Pending questions" }).waitFor(WAIT);
await page.locator(".inbox-row").filter({ hasText: "make release" }).waitFor(WAIT);
report.sidebarFolded = !(await page.locator(".sidebar").isVisible());
await shoot("inbox");
let card = await tapRow("Ship the release?");
await shoot("question");
await card.getByRole("radio", { name: /Yes/ }).tap();
await card.getByRole("button", { name: "Submit" }).tap();
await card.getByText("Answered", { exact: true }).waitFor(WAIT);
await page.getByRole("button", { name: "Back to the list" }).tap();
card = await tapRow("make release");
await shoot("approval", true);
await card.getByRole("button", { name: "Allow", exact: true }).tap();
await card.getByText("Answered", { exact: true }).waitFor(WAIT);
await page.getByRole("button", { name: "Back to the list" }).tap();

// Ada turns notifications on for this phone, from the menu.
await page.getByRole("button", { name: "Menu" }).tap();
await page.getByRole("button", { name: "Turn on notifications" }).tap();
await page.getByText("Notifications are on for this device").waitFor(WAIT);
await page.getByRole("button", { name: "Menu" }).tap();
report.subscribedWith = await page.evaluate(() => window.__subscribedWith);

/** Asks as Ada's agent; the question's id. */
async function ask(body) {
  const response = await fetch(`${base}/v1/questions`, {
    method: "POST",
    headers: { authorization: `Bearer ${adaToken}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return (await response.json()).request_id;
}
const approval = (command) => ({ agent: "claude-code", approval: { tool_name: "Bash", input: { command } } });

// The worker's registration, for the DevTools protocol's push.
await cdp.send("ServiceWorker.enable");
const registrations = [];
cdp.on("ServiceWorker.workerRegistrationUpdated", ({ registrations: updated }) => registrations.push(...updated));
const until = Date.now() + WAIT.timeout;
while (!registrations.some((r) => r.scopeURL === `${base}/` && !r.isDeleted) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
const registrationId = registrations.find((r) => r.scopeURL === `${base}/` && !r.isDeleted)?.registrationId;

/** Delivers a decrypted message to the worker; the notification it shows for `tag`. */
async function deliver(message, tag) {
  await cdp.send("ServiceWorker.deliverPushMessage", { origin: base, registrationId, data: message });
  const until = Date.now() + WAIT.timeout;
  while (Date.now() < until) {
    const shown = await sw.evaluate((tag) => self.__shown.filter((notification) => notification.tag === tag), tag);
    if (shown.length > 0) return shown;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return [];
}

const sw = context.serviceWorkers().find((w) => w.url() === `${base}/sw.js`);
// What the worker shows, as it asks the browser to show it: headless Chromium does not keep
// every notification a worker shows, so the calls themselves are recorded (and passed on).
await sw.evaluate(() => {
  self.__shown = [];
  const show = ServiceWorkerRegistration.prototype.showNotification;
  ServiceWorkerRegistration.prototype.showNotification = function (title, options) {
    const actions = (options?.actions ?? []).map(({ action, title }) => ({ action, title }));
    self.__shown.push({ title, body: options?.body ?? null, tag: options?.tag ?? null, actions });
    return show.call(this, title, options);
  };
});

// An approval with a short command: pushed, judged, shown with Allow and Deny, allowed from
// the notification's button.
report.allowed = { id: await ask(approval("make deploy")) };
report.allowed.pushes = await pushes(1);
report.allowed.push = received[0] ? judge(received[0]) : null;
if (report.allowed.push?.message) {
  report.allowed.shown = await deliver(report.allowed.push.message, report.allowed.id);
  // The press, in the worker, with what the notification carries (its `data`: the message):
  // headless Chromium closes notifications by itself, and no browser lets a script press one.
  report.allowed.pressed = await sw.evaluate((message) => self.beckonPress(message, "answer:0"), JSON.parse(report.allowed.push.message));
  report.allowed.after = await sw.evaluate((tag) => self.__shown.filter((notification) => notification.tag === tag), report.allowed.id);
}

// A command too long to show whole: Deny only.
report.cut = { id: await ask(approval(`make deploy ${"--flag ".repeat(400)}`)) };
report.cut.pushes = await pushes(2);
report.cut.push = received[1] ? judge(received[1]) : null;
if (report.cut.push?.message) report.cut.shown = await deliver(report.cut.push.message, report.cut.id);

// The browser unsubscribed behind the server's back: the push service answers 410 Gone, and
// the server stops pushing there.
answerWith = 410;
report.gone = { id: await ask(approval("make gone")) };
report.gone.pushes = await pushes(3);
report.gone.status = answerWith;
await ask(approval("make after"));
await new Promise((resolve) => setTimeout(resolve, 4_000));
report.gone.afterwards = received.length;

await context.close();
service.close();
process.stdout.write(`${JSON.stringify(report)}\n`);
process.exit(0);
