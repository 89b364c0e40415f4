import { lazy, Suspense } from "react";

export { openableUrl } from "./openableUrl";

// The renderer (a Markdown parser with its GitHub extensions) is over a third of the window's
// code: loaded when first needed, it is not parsed, nor held in memory, by a window that shows
// none, and the first frame comes without it.
const MarkdownBody = lazy(() => import("./MarkdownBody"));

/**
 * Text an agent wrote (a message, an option's preview), rendered as Markdown: headings, lists,
 * emphasis, code, tables. Raw HTML in it shows as the text it is, images show as their
 * description, and a link is one only for http(s) and mailto, opened in the system browser
 * when clicked. Until the renderer has loaded, the text shows as it was written.
 */
export function Markdown({ text, className }: { text: string; className?: string }) {
  return (
    <div className={`md${className ? ` ${className}` : ""}`}>
      <Suspense fallback={<p className="md-loading">{text}</p>}>
        <MarkdownBody text={text} />
      </Suspense>
    </div>
  );
}
