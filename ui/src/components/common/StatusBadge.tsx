import type { SessionStatus } from "../../bindings/SessionStatus";
import { sessionStatusLabel } from "../../format/labels";
import { Icon } from "./Icon";
import { Spinner } from "./Spinner";

/** A session's status as a small badge: "Waiting for input", a spinner while running, and so on. */
export function StatusBadge({ status, compact = false }: { status: SessionStatus; compact?: boolean }) {
  const label = sessionStatusLabel(status);
  return (
    <span className={`badge badge-${status}${compact ? " badge-compact" : ""}`} title={label}>
      {status === "running" && <Spinner />}
      {status === "completed" && <Icon name="check" size={12} />}
      {status === "failed" && <Icon name="alert" size={12} />}
      {status === "cancelled" && <Icon name="x" size={12} />}
      {status === "waiting_for_input" && <span className="dot" aria-hidden="true" />}
      <span className={compact && status !== "waiting_for_input" ? "visually-hidden" : undefined}>{label}</span>
    </span>
  );
}
