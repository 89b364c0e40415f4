import { useLayoutEffect } from "react";
import type { SessionId } from "../../bindings/SessionId";
import { useAppSelector } from "../../state/store";
import { MessageRow } from "./MessageRow";

/**
 * Assistant text still streaming in for a session. It alone follows the draft, so a streamed
 * token re-renders this slot and its message, never the timeline above it.
 */
export function StreamingDraft({ sessionId, onGrow }: { sessionId: SessionId; onGrow: () => void }) {
  const draft = useAppSelector((state) => state.drafts[sessionId]);
  useLayoutEffect(() => {
    if (draft) onGrow();
  }, [draft, onGrow]);
  return <div className="draft-slot">{draft ? <MessageRow role="assistant" text={draft} streaming /> : null}</div>;
}
