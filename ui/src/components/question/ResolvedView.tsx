import { useId } from "react";
import type { Answer } from "../../bindings/Answer";
import type { Outcome } from "../../bindings/Outcome";
import type { QuestionItem } from "../../bindings/QuestionItem";
import type { JsonValue } from "../../bindings/serde_json/JsonValue";
import { Markdown } from "../common/Markdown";
import { ItemHeading } from "./ItemHeading";
import { isChoice } from "./items";
import { enumTitle } from "./schemaHints";

function valueText(item: QuestionItem, value: JsonValue | null | undefined): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "boolean") return value ? "Yes" : "No";
  if (typeof value === "string" && !isChoice(item)) return item.schema.enum ? enumTitle(item.schema, value) : value;
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** One item's answer, read-only: chosen labels, the "Other" text, the value, the comment. */
function AnswerLines({ item, answer }: { item: QuestionItem; answer: Answer | undefined }) {
  if (!answer) return <p className="answer-none">No answer</p>;
  return (
    <div className="answer">
      {isChoice(item) ? (
        <ul className="answer-chips" aria-label="Chosen">
          {(answer.selected ?? []).map((label) => (
            <li key={label} className="answer-chip">
              {label}
            </li>
          ))}
          {answer.other ? (
            <li className="answer-chip answer-other">
              <span className="muted">Other: </span>
              {answer.other}
            </li>
          ) : null}
        </ul>
      ) : (
        <p className="answer-value">{valueText(item, answer.value)}</p>
      )}
      {answer.comment ? <blockquote className="answer-comment">{answer.comment}</blockquote> : null}
      <ChosenPreview item={item} answer={answer} />
    </div>
  );
}

/** The preview of the one option chosen, when it has one. */
function ChosenPreview({ item, answer }: { item: QuestionItem; answer: Answer }) {
  const selected = answer.selected ?? [];
  if (!isChoice(item) || selected.length !== 1) return null;
  const preview = item.options.find((option) => option.label === selected[0])?.preview;
  if (!preview) return null;
  return (
    <figure className="option-preview" aria-label={`Preview of ${selected[0]}`}>
      <Markdown text={preview} />
    </figure>
  );
}

function answersOf(outcome: Outcome | null): Answer[] | null {
  if (!outcome) return null;
  if (outcome.outcome === "answered") return outcome.answers;
  if (outcome.outcome === "expired") return outcome.default_answer ?? null;
  return null;
}

/** The items of a resolved question with whatever answer counted. */
export function ResolvedView({ items, outcome }: { items: readonly QuestionItem[]; outcome: Outcome | null }) {
  const answers = answersOf(outcome);
  const id = useId();
  return (
    <div className="qresolved">
      {items.map((item, index) => (
        <div className="qitem" key={index}>
          <ItemHeading header={item.header} question={item.question} id={`${id}-${index}`} />
          {answers ? <AnswerLines item={item} answer={answers[index]} /> : null}
        </div>
      ))}
      {outcome?.outcome === "expired" && answers ? <p className="qhint">The agent's default answer was used.</p> : null}
      {(outcome?.outcome === "declined" || outcome?.outcome === "cancelled") && outcome.reason ? (
        <blockquote className="answer-comment">{outcome.reason}</blockquote>
      ) : null}
    </div>
  );
}
