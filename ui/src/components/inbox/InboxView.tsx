import { useEffect, useRef } from "react";
import type { RequestId } from "../../bindings/RequestId";
import type { SessionId } from "../../bindings/SessionId";
import { useQuestionReveal } from "../../hooks/useQuestionReveal";
import { inboxQuestions } from "../../state/selectors";
import { sameItems, useAppSelector, useBackendHandles } from "../../state/store";
import { Icon } from "../common/Icon";
import { MountWhenNear } from "../common/MountWhenNear";
import { ConnectedQuestionCard } from "../question/ConnectedQuestionCard";

/** The oldest cards are drawn with the first frame; the rest as they scroll near. */
const EAGER_CARDS = 8;
/** A typical card's height, for the placeholders of cards not drawn yet. */
const CARD_ESTIMATE_PX = 260;

/**
 * Every pending question across sessions, oldest first, each answerable in place. A long
 * inbox draws its cards as they scroll near, so a thousand waiting questions open as fast as
 * ten.
 */
export function InboxView({ onOpenSession, highlightId }: { onOpenSession: (id: SessionId) => void; highlightId?: RequestId }) {
  const { dispatch } = useBackendHandles();
  const listRef = useRef<HTMLDivElement | null>(null);
  const questions = useAppSelector(inboxQuestions, sameItems);
  const waiting = questions.filter((question) => question.status === "pending");
  useQuestionReveal(listRef, waiting[0]?.id ?? null, highlightId ?? null);
  // Answered cards stay on screen, read-only, until the inbox is left.
  useEffect(() => () => dispatch({ type: "inbox_left" }), [dispatch]);

  return (
    <section className="view inbox-view" aria-labelledby="inbox-title">
      <header className="view-head">
        <div>
          <h1 id="inbox-title">Inbox</h1>
          <p className="view-sub">
            {waiting.length === 0 ? "Nothing is waiting for you" : waiting.length === 1 ? "1 question is waiting" : `${waiting.length} questions are waiting`}
          </p>
        </div>
      </header>
      <div className="view-body" ref={listRef}>
        {questions.length === 0 ? (
          <div className="empty">
            <Icon name="inbox" size={40} />
            <p className="empty-title">All caught up</p>
            <p className="muted">When an agent needs a decision, its question shows up here.</p>
          </div>
        ) : (
          <ol className="inbox-list" aria-label="Pending questions">
            {questions.map((question, index) => (
              <li key={question.id}>
                <MountWhenNear scroller={listRef} eager={index < EAGER_CARDS || question.id === highlightId} id={question.id} estimate={CARD_ESTIMATE_PX}>
                  <ConnectedQuestionCard
                    question={question}
                    highlighted={question.id === highlightId}
                    onOpenSession={() => onOpenSession(question.session_id)}
                  />
                </MountWhenNear>
              </li>
            ))}
          </ol>
        )}
      </div>
    </section>
  );
}
