import { absoluteTime } from "../../format/duration";
import { MultilineText } from "../common/MultilineText";

/** A user or assistant message. Assistant text is shown as plain text with its newlines. */
export function MessageRow({ role, text, atMs, streaming = false }: { role: "user" | "assistant"; text: string; atMs?: number; streaming?: boolean }) {
  return (
    <div className={`msg msg-${role}${streaming ? " msg-streaming" : ""}`} title={atMs ? absoluteTime(atMs) : undefined}>
      <span className="visually-hidden">{role === "user" ? "You:" : "Agent:"}</span>
      <MultilineText text={text} className="msg-text" />
      {streaming ? <span className="caret" aria-hidden="true" /> : null}
    </div>
  );
}
