import type { SessionSummary } from "../../bindings/SessionSummary";
import { absoluteTime, agoLabel } from "../../format/duration";
import { useNow } from "../../hooks/now";
import { useActions, useAppSelector } from "../../state/store";
import { StatusBadge } from "../common/StatusBadge";
import { CancelButton } from "./CancelButton";

/** A session's title, agent, status and — while it runs or waits — a cancel button. */
export function SessionHeader({ session, onOpenSession }: { session: SessionSummary; onOpenSession: (id: string) => void }) {
  const now = useNow();
  const sessions = useAppSelector((state) => state.sessions);
  const { cancel } = useActions();
  const parent = session.parent ? sessions[session.parent] : undefined;
  const cancellable = session.status === "running" || session.status === "waiting_for_input";
  return (
    <header className="view-head session-head">
      <div className="session-head-text">
        <h1 className="session-title" id="session-title">{session.title || "Untitled session"}</h1>
        <p className="view-sub">
          <span className="agent-name">{session.agent}</span>
          {session.origin !== "chat" ? <span className="origin-tag">{session.origin}</span> : null}
          <span className="muted" title={absoluteTime(session.created_at_ms)}>
            started {agoLabel(session.created_at_ms, now)}
          </span>
          {session.parent ? (
            <button type="button" className="link-button" onClick={() => onOpenSession(session.parent as string)}>
              sub-agent of {parent?.title ?? "another session"}
            </button>
          ) : null}
        </p>
      </div>
      <div className="session-head-actions">
        <StatusBadge status={session.status} />
        {cancellable ? <CancelButton onCancel={() => cancel(session.id)} /> : null}
      </div>
    </header>
  );
}
