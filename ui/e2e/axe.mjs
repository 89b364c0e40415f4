// axe-core's WCAG 2.1 A and AA rules run in a page, for the browser tests and the team server's.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const SOURCE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

/** The rule tags of WCAG 2.0 and 2.1, levels A and AA. */
export const WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/**
 * Runs axe-core over the whole page as it is now and returns its violations, each with the rule,
 * its impact and the elements that break it (a CSS path and axe's own account of why).
 */
export async function audit(page) {
  // Runs through the DevTools protocol, which the page's Content Security Policy does not govern.
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(SOURCE);
  return page.evaluate(async (tags) => {
    const result = await window.axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] });
    return result.violations.map((violation) => ({
      rule: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.map((node) => ({ target: node.target.join(" "), why: node.failureSummary ?? "" })),
    }));
  }, WCAG_21_AA);
}

/** Violations as lines a person can act on: the rule, then each element and why it fails. */
export function describe(violations) {
  return violations
    .map((violation) => [`${violation.rule} (${violation.impact}): ${violation.help}`, ...violation.nodes.map((node) => `  ${node.target}\n    ${node.why.replaceAll("\n", "\n    ")}`)].join("\n"))
    .join("\n");
}

/**
 * `audit` in the light and the dark theme, leaving the page light: each theme's violations as
 * `describe` words them, "" when there are none.
 */
export async function auditThemes(page) {
  const found = {};
  for (const colorScheme of ["dark", "light"]) {
    await page.emulateMedia({ colorScheme });
    found[colorScheme] = describe(await audit(page));
  }
  return found;
}
