import { openUrl } from "@tauri-apps/plugin-opener";
import type { MouseEvent } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";

import { openableUrl } from "./openableUrl";
import { ScrollBox } from "./ScrollBox";

function open(event: MouseEvent<HTMLAnchorElement>, url: string) {
  // Never navigate the window: the system browser opens the link, and only on this click.
  event.preventDefault();
  openUrl(url).catch(() => {
    // Nothing to do: the link stays on screen for the person to copy.
  });
}

const COMPONENTS: Components = {
  a: ({ href, children }) => {
    const url = openableUrl(href);
    if (!url) return <span className="md-link-refused">{children}</span>;
    return (
      <a href={url} title={url} rel="noreferrer noopener" onClick={(event) => open(event, url)}>
        {children}
      </a>
    );
  },
  // No remote images: a picture would load from the agent's chosen address as soon as it is shown.
  img: ({ alt }) => <span className="md-image">[image{alt ? `: ${alt}` : ""}]</span>,
  // Code and tables wider than the card scroll sideways, by keyboard too.
  pre: ({ children }) => (
    <ScrollBox kind="pre" label="Code">
      {children}
    </ScrollBox>
  ),
  table: ({ children }) => (
    <ScrollBox kind="div" className="md-table" label="Table">
      <table>{children}</table>
    </ScrollBox>
  ),
};

/** The Markdown renderer itself, loaded the first time something shows Markdown (see `Markdown`). */
export default function MarkdownBody({ text }: { text: string }) {
  return (
    <ReactMarkdown remarkPlugins={[remarkGfm]} components={COMPONENTS} urlTransform={(url) => openableUrl(url) ?? ""}>
      {text}
    </ReactMarkdown>
  );
}
