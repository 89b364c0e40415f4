import { cleanup, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { afterEach, describe, expect, it } from "vitest";
import { Markdown, openableUrl } from "./Markdown";

afterEach(() => {
  cleanup();
  clearMocks();
});

/** `text` through the component, once its renderer has loaded (until then it shows as written). */
async function rendered(text: string) {
  const { container } = render(<Markdown text={text} />);
  await waitFor(() => expect(container.querySelector(".md-loading")).toBeNull());
  return container;
}

describe("Markdown from an agent", () => {
  it("shows the text as written while the renderer loads, then rendered", async () => {
    const { container } = render(<Markdown text={"**bold** move"} />);
    expect(container.querySelector(".md-loading")).toHaveTextContent("**bold** move");
    expect(await screen.findByText("bold")).toBeInstanceOf(HTMLElement);
    expect(container.querySelector("strong")).toHaveTextContent("bold");
    expect(container.querySelector(".md-loading")).toBeNull();
  });

  it("renders headings, lists, emphasis, code blocks and tables", async () => {
    const md = await rendered("# Plan\n\n- **one**\n- *two*\n\n```rust\nfn main() {}\n```\n\n| A | B |\n|---|---|\n| 1 | 2 |\n");
    expect(md.querySelector("h1")).toHaveTextContent("Plan");
    expect(md.querySelectorAll("li")).toHaveLength(2);
    expect(md.querySelector("strong")).toHaveTextContent("one");
    expect(md.querySelector("em")).toHaveTextContent("two");
    expect(md.querySelector("pre code")).toHaveTextContent("fn main() {}");
    expect(md.querySelectorAll(".md-table table td")).toHaveLength(2);
  });

  it("shows raw HTML as text and creates no element from it", async () => {
    const hostile = '<img src=x onerror=alert(1)>\n\n<script>alert(1)</script>\n\n<iframe src="https://example.com"></iframe> <b onclick="x()">bold</b>';
    const md = await rendered(hostile);
    for (const tag of ["img", "script", "iframe", "b"]) expect(md.querySelector(tag)).toBeNull();
    expect(md.querySelector("[onerror], [onclick]")).toBeNull();
    expect(md.textContent).toContain("<img src=x onerror=alert(1)>");
    expect(md.textContent).toContain("<script>alert(1)</script>");
  });

  it("loads no image and makes a link only of http(s) and mailto", async () => {
    const md = await rendered(
      "![beacon](http://127.0.0.1:1/x.png) [run](javascript:alert(1)) [data](data:text/html,<b>x</b>) [file](file:///etc/passwd) [app](beckon://question/x) [site](https://example.com/a) [mail](mailto:a@example.com)",
    );
    expect(md.querySelector("img")).toBeNull();
    expect(md).toHaveTextContent("[image: beacon]");
    const links = [...md.querySelectorAll("a")].map((a) => a.getAttribute("href"));
    expect(links).toEqual(["https://example.com/a", "mailto:a@example.com"]);
    expect(md).toHaveTextContent("run data file app site mail");
  });

  it("opens a link in the system browser only when it is clicked", async () => {
    const opened: unknown[] = [];
    mockIPC((cmd, args) => {
      if (cmd === "plugin:opener|open_url") opened.push(args);
      return null;
    });
    await rendered("See [the docs](https://example.com/docs).");
    expect(opened).toEqual([]);
    await userEvent.click(screen.getByRole("link", { name: "the docs" }));
    expect(opened).toEqual([expect.objectContaining({ url: "https://example.com/docs" })]);
    expect(window.location.href).not.toContain("example.com");
  });

  it("renders a huge table without trouble", async () => {
    const header = `| ${Array.from({ length: 60 }, (_, i) => `c${i}`).join(" | ")} |`;
    const rule = `|${"---|".repeat(60)}`;
    const row = `| ${Array.from({ length: 60 }, () => "x").join(" | ")} |`;
    const md = await rendered([header, rule, ...Array.from({ length: 80 }, () => row)].join("\n"));
    expect(md.querySelectorAll("tr")).toHaveLength(81);
    expect(md.querySelector(".md-table")).not.toBeNull();
  });

  it("knows which addresses may open", () => {
    expect(openableUrl(" https://a.example ")).toBe("https://a.example");
    expect(openableUrl("HTTP://a.example")).toBe("HTTP://a.example");
    expect(openableUrl("javascript:alert(1)")).toBeNull();
    expect(openableUrl("//evil.example")).toBeNull();
    expect(openableUrl(undefined)).toBeNull();
  });
});
