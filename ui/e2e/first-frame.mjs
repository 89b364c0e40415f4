// How soon the window's first full view is painted: loads the mock build in Chromium N times per
// inbox size and prints the median time from navigation start to the `beckon:ready` mark, with
// the JavaScript and CSS the page had loaded by then. Run by hand (`npm run build:mock && node
// e2e/first-frame.mjs`), not as a test: timings vary with the machine and are never asserted.
//
//   --runs=<n>        page loads per size (default 9)
//   --sizes=0,1000    inbox sizes, as the mock's `?triage=<n>` (default 0,1000,10000)
//   --throttle=<n>    Chromium's CPU slow-down (default 4, near the desktop's software-rendered WebKit)
//   --dist=<dir>,...  mock builds to measure (default dist-mock); with several, e.g. a copy of an
//                     earlier build and the current one, their loads take turns, so a busy machine
//                     slows them alike
import { readFile, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { DIST } from "./harness.mjs";
import { serve } from "./server.mjs";

const option = (name, fallback) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split("=")[1] ?? fallback;
const RUNS = Number(option("runs", "9"));
const SIZES = option("sizes", "0,1000,10000").split(",").map(Number);
const THROTTLE = Number(option("throttle", "4"));
const BUILDS = option("dist", DIST).split(",");

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

/** The scripts and style sheets `dist/index.html` loads before anything else, with their sizes. */
async function firstLoad(dir) {
  const html = await readFile(join(dir, "index.html"), "utf8").catch(() => null);
  if (html === null) return null;
  const files = [...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+\.(?:js|css))"/g)].map((match) => match[1]);
  const sized = await Promise.all(files.map(async (file) => ({ file, bytes: (await stat(join(dir, file))).size })));
  const all = await readdir(join(dir, "assets"));
  const lazy = await Promise.all(all.filter((file) => !files.includes(`assets/${file}`)).map(async (file) => ({ file: `assets/${file}`, bytes: (await stat(join(dir, "assets", file))).size })));
  return { first: sized, lazy };
}

/** One page load: milliseconds from navigation start to each start-up mark, and what was fetched by `beckon:ready`. */
async function load(context, url) {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: THROTTLE });
  await page.goto(url);
  await page.waitForFunction(() => performance.getEntriesByName("beckon:ready").length > 0, null, { timeout: 60_000, polling: 20 });
  const timing = await page.evaluate(() => {
    const at = (name) => performance.getEntriesByName(name)[0]?.startTime ?? null;
    const ready = at("beckon:ready");
    const loaded = performance
      .getEntriesByType("resource")
      .filter((entry) => entry.responseEnd <= ready && /\.(js|css)$/.test(new URL(entry.name).pathname))
      .map((entry) => ({ file: new URL(entry.name).pathname.split("/").pop(), bytes: entry.decodedBodySize }));
    const mock = performance.getEntriesByType("measure").filter((entry) => entry.name.startsWith("mock:") && entry.startTime + entry.duration <= ready).reduce((sum, entry) => sum + entry.duration, 0);
    return { ready, snapshot: at("beckon:snapshot"), rendered: at("beckon:rendered"), mock, loaded };
  });
  await page.close();
  return timing;
}

const servers = await Promise.all(BUILDS.map((dir) => serve(dir)));
const context = await chromium.launchPersistentContext("", {
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync"],
  viewport: { width: 1440, height: 900 },
});
try {
  console.log(`CPU throttled ×${THROTTLE}, ${RUNS} loads per size, medians in ms from navigation start`);
  const results = BUILDS.map(() => []);
  for (const size of SIZES) {
    const runs = BUILDS.map(() => []);
    // One load first, unmeasured, so the disk cache and the browser's code cache are as warm as the desktop app's.
    for (const server of servers) await load(context, `${server.url}?triage=${size}`);
    for (let run = 0; run < RUNS; run += 1) {
      for (const [index, server] of servers.entries()) runs[index].push(await load(context, `${server.url}?triage=${size}`));
    }
    runs.forEach((list, index) => results[index].push({ size, runs: list }));
  }
  for (const [index, dir] of BUILDS.entries()) {
    console.log(`\n${dir}`);
    console.log("pending\tready\t(fastest)\tsnapshot\trendered\tready without the mock's own work");
    for (const { size, runs } of results[index]) {
      const pick = (key) => median(runs.map((run) => run[key])).toFixed(0);
      console.log(`${size}\t${pick("ready")}\t(${Math.min(...runs.map((run) => run.ready)).toFixed(0)})\t\t${pick("snapshot")}\t\t${pick("rendered")}\t\t${median(runs.map((run) => run.ready - run.mock)).toFixed(0)}`);
    }
    console.log("loaded by beckon:ready:");
    for (const { file, bytes } of results[index][0]?.runs[0]?.loaded ?? []) console.log(`  ${file}\t${kb(bytes)}`);
    const real = await firstLoad(join(dir, "..", "dist"));
    if (real) {
      console.log(`${join(dir, "..", "dist", "index.html")} loads first (the desktop build):`);
      for (const { file, bytes } of real.first) console.log(`  ${file}\t${kb(bytes)}`);
      console.log(`  total\t${kb(real.first.reduce((sum, { bytes }) => sum + bytes, 0))}`);
      console.log("and on demand:");
      for (const { file, bytes } of real.lazy) console.log(`  ${file}\t${kb(bytes)}`);
    }
  }
} finally {
  await context.close();
  await Promise.all(servers.map((server) => server.close()));
}
