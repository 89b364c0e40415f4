import { memo, useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import type { ErrorBody } from "../../bindings/ErrorBody";
import type { RequestId } from "../../bindings/RequestId";
import type { SessionId } from "../../bindings/SessionId";
import { useQuestionReveal } from "../../hooks/useQuestionReveal";
import { pendingQuestionFor, timelineOf } from "../../state/selectors";
import { useActions, useAppSelector } from "../../state/store";
import { Icon } from "../common/Icon";
import { Spinner } from "../common/Spinner";
import { Composer } from "./Composer";
import { SessionHeader } from "./SessionHeader";
import { Timeline } from "./Timeline";

const STICK_PX = 48;

const MemoTimeline = memo(Timeline);

/** One session: its timeline with question cards in place, and a composer. */
export function SessionView({
  sessionId,
  focusQuestionId = null,
  onOpenSession,
  onOpenQuestion,
}: {
  sessionId: SessionId;
  focusQuestionId?: RequestId | null;
  onOpenSession: (id: SessionId) => void;
  onOpenQuestion: (id: RequestId) => void;
}) {
  const { loadSession } = useActions();
  const [loadError, setLoadError] = useState<ErrorBody | null>(null);
  const scroller = useRef<HTMLDivElement | null>(null);
  const atBottom = useRef(true);

  useEffect(() => {
    let live = true;
    void loadSession(sessionId).then((error) => {
      if (live) setLoadError(error);
    });
    return () => {
      live = false;
    };
  }, [sessionId, loadSession]);

  const session = useAppSelector((state) => state.sessions[sessionId]);
  const entries = useAppSelector((state) => timelineOf(state, sessionId));
  const loaded = useAppSelector((state) => Boolean(state.loaded[sessionId]));
  const failure = useAppSelector((state) => state.failures[sessionId]);
  const waitingOn = useAppSelector((state) => pendingQuestionFor(state, sessionId));
  const ownPending = waitingOn && waitingOn.session_id === sessionId ? waitingOn.id : null;

  // Follow new entries and streaming text while the person is at the bottom.
  const follow = useCallback(() => {
    const element = scroller.current;
    if (element && atBottom.current) element.scrollTop = element.scrollHeight;
  }, []);
  useLayoutEffect(follow, [entries.length, loaded, follow]);
  useQuestionReveal(scroller, loaded ? ownPending : null, loaded ? focusQuestionId : null);

  if (!session) {
    return (
      <section className="view" aria-label="Session">
        <div className="view-body center">
          {loadError ? (
            <div className="empty" role="alert">
              <Icon name="alert" size={32} />
              <p className="empty-title">{loadError.kind === "not_found" ? "This session no longer exists" : "The session could not be opened"}</p>
              <p className="muted">{loadError.message}</p>
            </div>
          ) : (
            <Spinner label="Loading session" />
          )}
        </div>
      </section>
    );
  }

  const showQuestion = waitingOn
    ? () => {
        if (waitingOn.session_id !== sessionId) {
          onOpenQuestion(waitingOn.id);
          return;
        }
        const card = scroller.current?.querySelector<HTMLElement>(`[data-request-id="${waitingOn.id}"]`);
        card?.scrollIntoView({ block: "center", behavior: "smooth" });
        card?.querySelector<HTMLElement>("[data-question-focus]")?.focus({ preventScroll: true });
      }
    : null;

  return (
    <section className="view session-view" aria-labelledby="session-title">
      <SessionHeader session={session} onOpenSession={onOpenSession} />
      {session.status === "failed" ? (
        <div className="failure" role="alert">
          <Icon name="alert" size={16} />
          <div>
            <p className="failure-title">The session failed</p>
            <p className="prose-text">{failure ?? "No reason was given."}</p>
          </div>
        </div>
      ) : null}
      <div
        className="view-body timeline-scroll"
        ref={scroller}
        onScroll={(event) => {
          const element = event.currentTarget;
          atBottom.current = element.scrollHeight - element.scrollTop - element.clientHeight < STICK_PX;
        }}
      >
        {!loaded && entries.length === 0 ? (
          <div className="center">
            <Spinner label="Loading conversation" />
          </div>
        ) : (
          <MemoTimeline
            sessionId={sessionId}
            entries={entries}
            running={session.status === "running"}
            highlightId={focusQuestionId}
            onGrow={follow}
          />
        )}
      </div>
      <Composer session={session} onShowQuestion={showQuestion} waitingFor={waitingOn?.only_for ?? null} />
    </section>
  );
}
