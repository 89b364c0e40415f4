import { useId, useState } from "react";
import type { Answer } from "../../bindings/Answer";
import type { Approval } from "../../bindings/Approval";
import type { ChoiceQuestion } from "../../bindings/ChoiceQuestion";
import type { SubmitResult } from "../../state/types";
import { Markdown } from "../common/Markdown";
import { Spinner } from "../common/Spinner";
import { approvalAnswer, optionOf, type ApprovalDecision } from "./approval";

type Busy = "allow" | "always" | "deny" | "skip" | null;

/**
 * A tool call waiting for permission: what it would do (a command, a diff, a file's content —
 * the preview Beckon made, rendered as Markdown with raw HTML off), where it comes from, and
 * Allow, Allow always (saying what it covers), or Deny with a message to the agent. A Bash
 * command or a written file's content can be edited before allowing. Which choices are offered
 * and what may be edited are Beckon's to say; the approval carries both.
 */
export function ApprovalForm({
  approval,
  item,
  onAnswer,
  onDecline,
}: {
  approval: Approval;
  item: ChoiceQuestion;
  onAnswer: (answers: Answer[]) => Promise<SubmitResult>;
  onDecline: () => Promise<SubmitResult>;
}) {
  const id = useId();
  const field = approval.editable_field ?? null;
  const original = field === null ? "" : String(approval.input[field]);
  const [editing, setEditing] = useState(false);
  const [edited, setEdited] = useState(original);
  const [message, setMessage] = useState("");
  const [busy, setBusy] = useState<Busy>(null);
  const [error, setError] = useState<string | null>(null);
  const preview = optionOf(approval, item, "Allow")?.preview;
  const always = optionOf(approval, item, "Allow always");

  const send = async (which: Busy, decision: ApprovalDecision | null) => {
    if (busy) return;
    setBusy(which);
    setError(null);
    const result = decision === null ? await onDecline() : await onAnswer([approvalAnswer(decision)]);
    setBusy(null);
    if (!result.ok && result.error.kind !== "already_resolved") setError(result.error.message);
  };
  const allow = (isAlways: boolean) =>
    send(isAlways ? "always" : "allow", { kind: "allow", always: isAlways, edited: editing && edited !== original ? edited : null });

  return (
    <form className="qform approval" aria-label={`Approve: ${item.question}`} onSubmit={(event) => event.preventDefault()}>
      <div className="qitem">
        <div className="qheading">
          {item.header ? <span className="chip">{item.header}</span> : null}
          <span className="qtext">{item.question}</span>
        </div>
        {approval.project ? (
          <p className="approval-origin muted">
            In <code>{approval.project}</code>
            {approval.session ? <> · Claude Code session <code>{approval.session.slice(0, 8)}</code></> : null}
          </p>
        ) : null}
        {editing && field !== null ? (
          <div className="approval-edit">
            <label htmlFor={`${id}-edit`} className="field-label">
              {field === "command" ? "Command to run" : "Content to write"}
            </label>
            <textarea
              id={`${id}-edit`}
              className="mono"
              rows={field === "command" ? 3 : 10}
              value={edited}
              disabled={busy !== null}
              onChange={(event) => setEdited(event.target.value)}
              autoFocus
            />
          </div>
        ) : preview ? (
          <figure className="option-preview approval-preview" aria-label="What it would do">
            <Markdown text={preview} />
          </figure>
        ) : null}
        {field !== null ? (
          <button type="button" className="link-button" onClick={() => setEditing(!editing)} disabled={busy !== null}>
            {editing ? "Show the original" : field === "command" ? "Edit the command before allowing" : "Edit the content before allowing"}
          </button>
        ) : null}
        {always?.description ? <p className="qhint">Allow always: {always.description}</p> : null}
        <div className="comment-field">
          <label htmlFor={`${id}-deny`} className="field-label">
            Message if you deny <span className="muted">(optional, told to the agent)</span>
          </label>
          <textarea id={`${id}-deny`} rows={2} value={message} disabled={busy !== null} onChange={(event) => setMessage(event.target.value)} />
        </div>
      </div>
      {error ? (
        <div className="form-error" role="alert">
          <p>{error}</p>
        </div>
      ) : null}
      <div className="qactions">
        <button type="button" className="button button-quiet" onClick={() => void send("skip", null)} disabled={busy !== null}>
          {busy === "skip" ? <Spinner /> : null}
          Leave to the terminal
        </button>
        <button type="button" className="button button-danger" onClick={() => void send("deny", { kind: "deny", message })} disabled={busy !== null}>
          {busy === "deny" ? <Spinner /> : null}
          Deny
        </button>
        {always ? (
          <button type="button" className="button" onClick={() => void allow(true)} disabled={busy !== null}>
            {busy === "always" ? <Spinner /> : null}
            Allow always
          </button>
        ) : null}
        <button type="button" className="button button-primary" onClick={() => void allow(false)} disabled={busy !== null}>
          {busy === "allow" ? <Spinner /> : null}
          {editing && edited !== original ? "Allow edited" : "Allow"}
        </button>
      </div>
    </form>
  );
}
