import { useState } from "react";
import type { BatchDecision } from "../../api/triage";
import { count, type BatchSummary } from "../../state/triage";
import { Dialog } from "./Overlays";

/** How many commands a confirmation lists before "and N more". */
const LISTED_COMMANDS = 20;

/** One of the batch decisions the bar offers. */
export type BatchKind = BatchDecision["decision"];

const VERB: Record<BatchKind, string> = { deny: "Deny", decline: "Decline", allow_once: "Allow once" };

function things(summary: BatchSummary): string {
  if (summary.allApprovals) return summary.count === 1 ? "1 approval" : `${count(summary.count)} approvals`;
  return summary.count === 1 ? "1 question" : `${count(summary.count)} questions`;
}

/** The heading of a batch's confirmation: "Deny 5 approvals?". */
export function confirmTitle(kind: BatchKind, summary: BatchSummary): string {
  return `${VERB[kind]} ${things(summary)}?`;
}

/** "from 3 projects: shop, api, docs", or null when the selection is from one project. */
export function projectsLine(summary: BatchSummary): string | null {
  return summary.projects.length > 1 ? `from ${summary.projects.length} projects: ${summary.projects.join(", ")}` : null;
}

/** The selection's count and the decisions that can be applied to all of it. */
export function BatchBar({ summary, onChoose, onClear }: { summary: BatchSummary; onChoose: (kind: BatchKind) => void; onClear: () => void }) {
  return (
    <div className="batch-bar" role="toolbar" aria-label="Selected questions">
      <span className="batch-count">{count(summary.count)} selected</span>
      <button type="button" className="button button-danger" onClick={() => onChoose("deny")} disabled={summary.approvals === 0}>
        Deny all
      </button>
      <button type="button" className="button" onClick={() => onChoose("decline")}>
        Decline all
      </button>
      {summary.allApprovals ? (
        <button type="button" className="button button-primary" onClick={() => onChoose("allow_once")}>
          Allow once all
        </button>
      ) : null}
      <button type="button" className="link-button" onClick={onClear}>
        Clear selection
      </button>
    </div>
  );
}

/**
 * Confirms a batch that touches approvals: how many, which commands (the first twenty and how
 * many more), and from which projects when more than one.
 */
export function BatchConfirm({ kind, summary, onConfirm, onClose }: { kind: BatchKind; summary: BatchSummary; onConfirm: (decision: BatchDecision) => void; onClose: () => void }) {
  const [message, setMessage] = useState("");
  const listed = summary.commands.slice(0, LISTED_COMMANDS);
  const more = summary.commands.length - listed.length;
  const projects = projectsLine(summary);
  const decision = (): BatchDecision =>
    kind === "deny" ? { decision: "deny", message: message.trim() || null } : kind === "decline" ? { decision: "decline", reason: message.trim() || null } : { decision: "allow_once" };
  return (
    <Dialog title={confirmTitle(kind, summary)} onClose={onClose} className="batch-confirm">
      {projects ? (
        <p className="batch-projects" role="note">
          <strong>Mixed projects</strong> — {projects}
        </p>
      ) : null}
      {summary.approvals > 0 ? (
        <>
          <p>
            {summary.approvals === summary.count ? "These commands:" : `${count(summary.approvals)} of them are approvals, for:`}
          </p>
          <ul className="batch-commands" aria-label="Commands">
            {listed.map((command, index) => (
              <li key={index}>
                <code>{command}</code>
              </li>
            ))}
          </ul>
          {more > 0 ? <p className="muted">and {count(more)} more</p> : null}
        </>
      ) : null}
      {kind === "allow_once" ? <p className="muted">Each runs once; nothing is allowed for later.</p> : null}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          onConfirm(decision());
        }}
      >
        {kind !== "allow_once" ? (
          <>
            <label className="field-label" htmlFor="batch-message">
              {kind === "deny" ? "Message to the agents" : "Reason"} <span className="muted">(optional)</span>
            </label>
            <input id="batch-message" type="text" value={message} onChange={(event) => setMessage(event.target.value)} />
          </>
        ) : null}
        <div className="dialog-actions">
          <button type="button" className="button button-quiet" onClick={onClose} data-autofocus>
            Cancel
          </button>
          <button type="submit" className={`button ${kind === "allow_once" ? "button-primary" : "button-danger"}`}>
            {VERB[kind]} {things(summary)}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** What the last batch came to. */
export interface BatchOutcome {
  resolved: number;
  failed: { what: string; message: string }[];
  error: string | null;
}

/** "5 resolved, 2 failed" and why each failed. */
export function BatchResult({ outcome, onClose }: { outcome: BatchOutcome; onClose: () => void }) {
  return (
    <div className={`batch-result${outcome.failed.length > 0 || outcome.error ? " has-failures" : ""}`} role="status">
      <p>
        {outcome.error ? `Nothing was sent: ${outcome.error}` : `${count(outcome.resolved)} resolved${outcome.failed.length > 0 ? `, ${count(outcome.failed.length)} failed` : ""}`}
      </p>
      {outcome.failed.length > 0 ? (
        <ul>
          {outcome.failed.slice(0, LISTED_COMMANDS).map((failure, index) => (
            <li key={index}>
              <span className="batch-failed-what">{failure.what}</span>: {failure.message}
            </li>
          ))}
          {outcome.failed.length > LISTED_COMMANDS ? <li>and {count(outcome.failed.length - LISTED_COMMANDS)} more</li> : null}
        </ul>
      ) : null}
      <button type="button" className="link-button" onClick={onClose}>
        Dismiss
      </button>
    </div>
  );
}
