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
  slack: "Slack",
  telegram: "Telegram",
  rule: "a rule",
};

/** Where an answer came from, and who gave it when the front end knows: "via a notification",
 * "via Slack (ada)", "Allowed by rule 3". `by` is stored as "slack:U123 (ada)", or for a person
 * signed in on a team server "oidc:<subject> (Ada Lovelace <ada@example.com>)"; the person's name
 * is shown. */
export function viaLabel(via: AnsweredVia, by?: string | null): string {
  // A standing rule answered: "Allowed by rule 3" (`by` is "rule 3").
  if (via === "rule") return by ? `Allowed by ${by}` : "Allowed by a rule";
  const person = by ? personName(by) : null;
  return person ? `via ${VIA[via]} (${person})` : `via ${VIA[via]}`;
}

function personName(by: string): string {
  const named = /\(([^()]*)\)$/.exec(by);
  // "Ada Lovelace <ada@example.com>": the name, when there is one besides the address.
  if (named?.[1]) return named[1].replace(/^(.+?) <[^<>]*>$/, "$1");
  const colon = by.indexOf(":");
  return colon >= 0 ? by.slice(colon + 1) : by;
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
