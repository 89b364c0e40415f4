import { useRef, useState } from "react";
import type { Answer } from "../../bindings/Answer";
import { absoluteTime, agoLabel, expiryLabel, waitingLabel } from "../../format/duration";
import { asksLabel, questionStatusLabel, viaLabel } from "../../format/labels";
import { useNow } from "../../hooks/now";
import type { LoadedQuestion, QuestionInfo } from "../../state/types";
import { Icon } from "../common/Icon";
import { ApprovalForm } from "./ApprovalForm";
import { isChoice } from "./items";
import { QuestionForm, type SubmitResult } from "./QuestionForm";
import { ResolvedView } from "./ResolvedView";

export interface QuestionCardProps {
  question: LoadedQuestion;
  /** The agent continued after this question. */
  resumed: boolean;
  onAnswer: (answers: Answer[]) => Promise<SubmitResult>;
  onDecline: () => Promise<SubmitResult>;
  /** When given, the card links to its session (the inbox does this). */
  onOpenSession?: () => void;
  /** Draw attention to it (it was navigated to). */
  highlighted?: boolean;
}

function OutcomeLine({ question, resumed, now }: { question: QuestionInfo; resumed: boolean; now: number }) {
  const { status, answered_via: via, answered_by: by, resolved_at_ms: at } = question;
  return (
    <p className="outcome-line">
      <span className={`outcome outcome-${status}`}>
        <Icon name={status === "answered" ? "check" : status === "expired" ? "clock" : status === "declined" ? "skip" : "x"} size={13} />
        {questionStatusLabel(status)}
      </span>
      {via ? <span className="muted">{viaLabel(via, by)}</span> : null}
      {at !== null ? (
        <time className="muted" dateTime={new Date(at).toISOString()} title={absoluteTime(at)}>
          {agoLabel(at, now)}
        </time>
      ) : null}
      {resumed ? (
        <span className="resumed">
          <Icon name="play" size={11} />
          Resumed
        </span>
      ) : null}
    </p>
  );
}

/**
 * One `ask_user_question` request as a card: the form while it is pending (read-only, saying
 * whose it is, for an admin reading someone else's); afterwards, read-only with its outcome, the
 * answer that counted, where it came from, and whether the agent resumed.
 */
export function QuestionCard({ question, resumed, onAnswer, onDecline, onOpenSession, highlighted = false }: QuestionCardProps) {
  const now = useNow();
  const cardRef = useRef<HTMLElement | null>(null);
  const [lostRace, setLostRace] = useState(false);
  const items = question.request.questions;
  const pending = question.status === "pending";
  const asks = asksLabel(question.origin, question.agent);
  const title = items[0]?.question ?? "Question";
  const approval = question.request.approval;
  const first = items[0];
  const approvalItem = first && isChoice(first) ? first : null;

  const watch = async (result: Promise<SubmitResult>) => {
    const settled = await result;
    if (!settled.ok && settled.error.kind === "already_resolved") setLostRace(true);
    return settled;
  };

  return (
    <article
      ref={cardRef}
      className={`qcard${pending ? " qcard-pending" : " qcard-resolved"}${highlighted ? " qcard-highlighted" : ""}`}
      aria-label={`${asks}: ${title}`}
      data-request-id={question.id}
      data-status={question.status}
    >
      <header className="qcard-head">
        <span className="qcard-origin">
          <Icon name="sparkle" size={14} />
          {asks}
        </span>
        {question.asked_by ? <span className="qcard-asker">asked by {question.asked_by}</span> : null}
        {question.inbox ? (
          <span className="inbox-row-team" title={`Waits in the team inbox ${question.inbox}`}>
            {question.inbox}
          </span>
        ) : null}
        {pending && question.created_at_ms !== null ? (
          <span className="qcard-wait" title={absoluteTime(question.created_at_ms)}>
            {waitingLabel(question.created_at_ms, now)}
          </span>
        ) : null}
        {pending && question.expires_at_ms !== null ? (
          <span className="qcard-expiry" title={absoluteTime(question.expires_at_ms)}>
            {expiryLabel(question.expires_at_ms, now)}
          </span>
        ) : null}
        {onOpenSession ? (
          <button type="button" className="link-button qcard-session" onClick={onOpenSession}>
            Open session
            <Icon name="arrowRight" size={13} />
          </button>
        ) : null}
      </header>
      {pending && question.only_for ? (
        <div className="qcard-not-yours">
          {items.map((item, index) => (
            <p key={index} className="question-text">
              {item.question}
            </p>
          ))}
          <p className="qcard-only-for" role="note">
            Addressed to {question.only_for}: only they can answer it.
          </p>
        </div>
      ) : pending && approval && approvalItem ? (
        <ApprovalForm
          approval={approval}
          item={approvalItem}
          onAnswer={(answers) => watch(onAnswer(answers))}
          onDecline={() => watch(onDecline())}
        />
      ) : pending ? (
        <QuestionForm
          items={items}
          label={`Answer: ${title}`}
          cardRef={cardRef}
          onAnswer={(answers) => watch(onAnswer(answers))}
          onDecline={() => watch(onDecline())}
        />
      ) : (
        <>
          {lostRace ? (
            <p className="race-note" role="status">
              This question was answered elsewhere first. This is the answer that counted.
            </p>
          ) : null}
          <ResolvedView items={items} outcome={question.outcome} />
          <OutcomeLine question={question} resumed={resumed} now={now} />
        </>
      )}
    </article>
  );
}
