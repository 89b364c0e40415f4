import type { SessionId } from "../../bindings/SessionId";
import { absoluteTime, shortAge } from "../../format/duration";
import { useNow } from "../../hooks/now";
import { useAfterFirstFrame } from "../../hooks/useAfterFirstFrame";
import { topLevelSessions } from "../../state/selectors";
import { sameItems, useActions, useAppSelector } from "../../state/store";
import { StatusBadge } from "../common/StatusBadge";

/**
 * How many sessions the first frame draws: more than the sidebar of a tall screen shows. The
 * rest (up to a hundred) follow a frame later, so the inbox is on screen sooner.
 */
export const FIRST_FRAME_SESSIONS = 24;

/** Top-level sessions, newest first, with their status and agent. */
export function SessionList({ currentId, onOpen }: { currentId: SessionId | null; onOpen: (id: SessionId) => void }) {
  const { loadMoreSessions } = useActions();
  const now = useNow();
  const sessions = useAppSelector(topLevelSessions, sameItems);
  const next = useAppSelector((state) => state.sessionsNext);
  const painted = useAfterFirstFrame();
  const drawn = painted ? sessions : sessions.slice(0, FIRST_FRAME_SESSIONS);
  return (
    <nav className="session-list" aria-label="Sessions">
      <h2 className="sidebar-heading">Sessions</h2>
      {sessions.length === 0 ? <p className="sidebar-empty">No sessions yet.</p> : null}
      <ul>
        {drawn.map((session) => (
          <li key={session.id}>
            <button
              type="button"
              className={`session-item${session.id === currentId ? " current" : ""}`}
              aria-current={session.id === currentId ? "page" : undefined}
              onClick={() => onOpen(session.id)}
            >
              <span className="session-item-top">
                <span className="session-item-title">{session.title || "Untitled session"}</span>
                <span className="session-item-time" title={absoluteTime(session.updated_at_ms)}>
                  {shortAge(session.updated_at_ms, now)}
                </span>
              </span>
              <span className="session-item-meta">
                <StatusBadge status={session.status} compact />
                <span className="session-item-agent">{session.agent}</span>
              </span>
            </button>
          </li>
        ))}
      </ul>
      {next ? (
        <button type="button" className="link-button load-more" onClick={() => void loadMoreSessions(next)}>
          Show older sessions
        </button>
      ) : null}
    </nav>
  );
}
