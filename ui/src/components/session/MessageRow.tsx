import { absoluteTime } from "../../format/duration";
import { Markdown } from "../common/Markdown";
import { MultilineText } from "../common/MultilineText";

/** A user or assistant message: the person's words as they typed them, the agent's as Markdown. */
export function MessageRow({ role, text, atMs, streaming = false }: { role: "user" | "assistant"; text: string; atMs?: number; streaming?: boolean }) {
  return (
    <div className={`msg msg-${role}${streaming ? " msg-streaming" : ""}`} title={atMs ? absoluteTime(atMs) : undefined}>
      <span className="visually-hidden">{role === "user" ? "You:" : "Agent:"}</span>
      {role === "assistant" ? <Markdown text={text} className="msg-text" /> : <MultilineText text={text} className="msg-text" />}
      {streaming ? <span className="caret" aria-hidden="true" /> : null}
    </div>
  );
}
