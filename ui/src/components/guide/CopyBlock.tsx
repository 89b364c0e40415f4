import { useEffect, useId, useState } from "react";

/** Copies `text` to the clipboard: the Clipboard API, else a selection copied the old way. */
async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.append(area);
    area.select();
    try {
      return document.execCommand("copy");
    } catch {
      return false;
    } finally {
      area.remove();
    }
  }
}

/** Text to paste elsewhere (a configuration, a command), shown as it is, with a Copy button. */
export function CopyBlock({ label, text }: { label: string; text: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  const id = useId();
  useEffect(() => {
    if (state !== "copied") return;
    const timer = window.setTimeout(() => setState("idle"), 2000);
    return () => window.clearTimeout(timer);
  }, [state]);
  return (
    <div className="copy-block">
      <pre id={`${id}-text`} aria-label={label} tabIndex={0}>
        <code>{text}</code>
      </pre>
      <button
        type="button"
        className="button button-small copy-button"
        aria-describedby={`${id}-text`}
        aria-label={`Copy ${label}`}
        onClick={() => void copyText(text).then((done) => setState(done ? "copied" : "failed"))}
      >
        {state === "copied" ? "Copied" : "Copy"}
      </button>
      <span className="visually-hidden" role="status">
        {state === "copied" ? "Copied" : ""}
      </span>
      {state === "failed" ? <p className="field-error">The clipboard is not available here: select the text and copy it.</p> : null}
    </div>
  );
}
