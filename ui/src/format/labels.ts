import type { AnsweredVia } from "../bindings/AnsweredVia";
import type { Origin } from "../bindings/Origin";
import type { QuestionStatus } from "../bindings/QuestionStatus";
import type { SessionStatus } from "../bindings/SessionStatus";

/** Who asks: "research › summariser asks". */
export function asksLabel(origin: Origin, agent: string): string {
  const chain = origin.length > 0 ? origin : [agent];
  return `${chain.join(" › ")} asks`;
}

const VIA: Record<AnsweredVia, string> = {
  window: "the window",
  notification: "a notification",
  tray: "the tray",
  deep_link: "a link",
  http: "HTTP",
  mcp: "MCP",
  cli: "the CLI",
};

/** Where an answer came from: "via a notification". */
export function viaLabel(via: AnsweredVia): string {
  return `via ${VIA[via]}`;
}

const QUESTION_STATUS: Record<QuestionStatus, string> = {
  pending: "Waiting",
  answered: "Answered",
  declined: "Declined",
  expired: "Expired",
  cancelled: "Cancelled",
};

/** A question's status for a person. */
export function questionStatusLabel(status: QuestionStatus): string {
  return QUESTION_STATUS[status];
}

const SESSION_STATUS: Record<SessionStatus, string> = {
  running: "Running",
  waiting_for_input: "Waiting for input",
  completed: "Completed",
  failed: "Failed",
  cancelled: "Cancelled",
};

/** A session's status for a person. */
export function sessionStatusLabel(status: SessionStatus): string {
  return SESSION_STATUS[status];
}

/** A share (0–1) as a percentage: "12%". */
export function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}
