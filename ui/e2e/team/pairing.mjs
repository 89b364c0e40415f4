// Drives Debian's Chromium against a team server that runs Telegram, for
// `crates/beckon-cli/tests/team_channels.rs`: a person signs in and asks their page for a code to
// pair their own Telegram chat ("pair"), or looks at where their pairing stands ("look"). It only
// reports what the page showed, as one JSON object on standard output; the Rust test judges it.
//
// Usage: node pairing.mjs pair|look <server URL> <person>
import { chromium } from "playwright-core";
import { auditThemes } from "../axe.mjs";

const [phase, base, who] = process.argv.slice(2);
if (!["pair", "look"].includes(phase) || !base || !who) {
  console.error("usage: node pairing.mjs pair|look <server URL> <person>");
  process.exit(2);
}

const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"];
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: FLAGS });
const WAIT = { timeout: 20_000 };
const report = {};
try {
  const page = await (await browser.newContext()).newPage();
  const problems = [];
  page.on("pageerror", (error) => problems.push(String(error)));
  await page.goto(`${base}/`);
  await page.waitForURL((url) => url.href.includes("/authorize"), WAIT);
  await page.click(`a.person[data-subject="${who}"]`);
  await page.waitForURL(`${base}/`, WAIT);
  const channels = page.getByRole("group", { name: "Your channels" });
  await channels.waitFor(WAIT);
  if (phase === "pair") {
    await channels.getByRole("button", { name: "Pair your Telegram account" }).click();
    const hint = channels.locator(".person-code");
    await hint.waitFor(WAIT);
    report.instruction = await hint.innerText();
    report.code = /\/start ([A-Z0-9]+)/.exec(report.instruction)?.[1] ?? null;
    report.axe = await auditThemes(page);
  } else {
    await channels.getByText(/Telegram: paired/).waitFor(WAIT);
    report.shown = await channels.innerText();
  }
  report.problems = problems;
} finally {
  await browser.close();
}
console.log(JSON.stringify(report));
