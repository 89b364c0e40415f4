// The hostile Markdown corpus (tests/hostile/markdown.json) through the Markdown component.
import { cleanup, render, waitFor } from "@testing-library/react";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Markdown } from "./Markdown";

type Spec = string | Spec[] | { repeat: Spec; times: number } | { concat: Spec[] };
interface Case {
  name: string;
  markdown: Spec;
  links: string[];
  text_contains: string[];
}

/** The text a corpus spec describes (see tests/hostile/README.md). */
function spec(value: Spec): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(spec).join("");
  if ("repeat" in value) return spec(value.repeat).repeat(value.times);
  return spec(value.concat);
}

const corpus = JSON.parse(readFileSync(join(__dirname, "../../../../tests/hostile/markdown.json"), "utf8")) as { cases: Case[] };
const FORBIDDEN = "img, script, iframe, object, embed, style, form, input, svg, video, audio, link, meta, base";

afterEach(cleanup);

describe("hostile Markdown", () => {
  it.each(corpus.cases.map((c) => [c.name, c] as const))("%s is inert", async (_, entry) => {
    const { container } = render(<Markdown text={spec(entry.markdown)} />);
    // Once rendered: until the renderer has loaded the text shows as written.
    await waitFor(() => expect(container.querySelector(".md-loading")).toBeNull());
    expect(container.querySelector(FORBIDDEN)).toBeNull();
    expect([...container.querySelectorAll("a")].map((a) => a.getAttribute("href"))).toEqual(entry.links);
    for (const text of entry.text_contains) expect(container.textContent).toContain(text);
  });
});
