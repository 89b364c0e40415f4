import type { RequestId } from "../../bindings/RequestId";
import type { TimelineEntry } from "../../bindings/TimelineEntry";
import { buildRows } from "../../state/rows";
import type { SessionId } from "../../bindings/SessionId";
import { useAppSelector } from "../../state/store";
import { ConnectedQuestionCard } from "../question/ConnectedQuestionCard";
import { MessageRow } from "./MessageRow";
import { StreamingDraft } from "./StreamingDraft";
import { ToolCallRow } from "./ToolCallRow";

/**
 * A session's committed timeline, then — in its own slot after it — any assistant text still
 * streaming, so the committed rows (question cards included) never move while text arrives.
 */
export function Timeline({
  sessionId,
  entries,
  running,
  highlightId,
  onGrow,
}: {
  sessionId: SessionId;
  entries: readonly TimelineEntry[];
  running: boolean;
  highlightId: RequestId | null;
  /** The streaming text grew: the view may follow it. */
  onGrow: () => void;
}) {
  const questions = useAppSelector((state) => state.questions);
  const rows = buildRows(entries);
  return (
    <div className="timeline">
      <ol className="timeline-rows" aria-label="Conversation">
        {rows.map((row) => {
          switch (row.kind) {
            case "user":
            case "assistant":
              return (
                <li key={row.key}>
                  <MessageRow role={row.kind} text={row.text} atMs={row.atMs} />
                </li>
              );
            case "tool":
              return (
                <li key={row.key}>
                  <ToolCallRow name={row.name} input={row.input} result={row.result} running={running} />
                </li>
              );
            case "orphan_result":
              return (
                <li key={row.key}>
                  <ToolCallRow name="result" input={null} result={{ content: row.content, isError: row.isError }} running={false} />
                </li>
              );
            case "question": {
              const question = questions[row.requestId];
              return question ? (
                <li key={row.key}>
                  <ConnectedQuestionCard question={question} highlighted={row.requestId === highlightId} />
                </li>
              ) : null;
            }
          }
        })}
      </ol>
      <StreamingDraft sessionId={sessionId} onGrow={onGrow} />
    </div>
  );
}
