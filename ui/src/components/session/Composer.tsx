import type { SessionSummary } from "../../bindings/SessionSummary";
import { useActions, useAppSelector } from "../../state/store";
import { Icon } from "../common/Icon";
import { Spinner } from "../common/Spinner";
import { MessageBox } from "./MessageBox";

/**
 * The bottom of a session: a box to continue a finished session, or a line saying why one
 * cannot write now — with a way to the question the session waits on.
 */
export function Composer({
  session,
  onShowQuestion,
  waitingFor = null,
}: {
  session: SessionSummary;
  onShowQuestion: (() => void) | null;
  /** Whom the question it waits on is addressed to, when that is someone else (see `only_for`). */
  waitingFor?: string | null;
}) {
  const { sendMessage } = useActions();
  // On a team server agents run elsewhere: the page answers them but does not write to them.
  const inBrowser = useAppSelector((state) => state.person !== null);
  switch (session.status) {
    case "completed":
    case "failed":
      if (inBrowser) {
        return (
          <div className="composer composer-note" role="status">
            <span>{session.status === "failed" ? "This session failed." : "This session has finished."}</span>
          </div>
        );
      }
      return (
        <div className="composer">
          <MessageBox
            label="Message"
            placeholder={session.status === "failed" ? "Try again or say what to do next…" : "Reply to continue the conversation…"}
            sendLabel="Send"
            onSend={(text) => sendMessage(session.id, text)}
          />
        </div>
      );
    case "waiting_for_input":
      return (
        <div className="composer composer-note composer-waiting" role="status">
          <span className="dot" aria-hidden="true" />
          <span>{waitingFor ? `The agent is waiting for an answer from ${waitingFor}.` : "The agent is waiting for your answer."}</span>
          {onShowQuestion ? (
            <button type="button" className="button button-small" onClick={onShowQuestion}>
              Go to the question
              <Icon name="arrowRight" size={13} />
            </button>
          ) : null}
        </div>
      );
    case "running":
      return (
        <div className="composer composer-note" role="status">
          <Spinner />
          <span>The agent is working. You can write once it finishes.</span>
        </div>
      );
    case "cancelled":
      return (
        <div className="composer composer-note" role="status">
          <Icon name="x" size={14} />
          <span>This session was cancelled.</span>
        </div>
      );
  }
}
