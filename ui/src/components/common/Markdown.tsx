import { openUrl } from "@tauri-apps/plugin-opener";
import type { MouseEvent } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";

/** Only these schemes become links; anything else (javascript:, data:, file:, beckon:) is text. */
const OPENABLE = /^(https?:\/\/|mailto:)/i;

/** The URL a link may open, or null. */
export function openableUrl(url: string | null | undefined): string | null {
  const trimmed = url?.trim() ?? "";
  return OPENABLE.test(trimmed) ? trimmed : null;
}

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
  table: ({ children }) => (
    <div className="md-table">
      <table>{children}</table>
    </div>
  ),
};

/**
 * Text an agent wrote (a message, an option's preview), rendered as Markdown: headings, lists,
 * emphasis, code, tables. Raw HTML in it shows as the text it is, images show as their
 * description, and a link is one only for http(s) and mailto, opened in the system browser
 * when clicked.
 */
export function Markdown({ text, className }: { text: string; className?: string }) {
  return (
    <div className={`md${className ? ` ${className}` : ""}`}>
      <ReactMarkdown remarkPlugins={[remarkGfm]} components={COMPONENTS} urlTransform={(url) => openableUrl(url) ?? ""}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
