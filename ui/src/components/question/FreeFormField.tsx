import { useId } from "react";
import type { FreeFormQuestion } from "../../bindings/FreeFormQuestion";
import { CommentField } from "./CommentField";
import type { FreeDraft } from "./draft";
import { FieldErrors } from "./FieldErrors";
import { ItemHeading } from "./ItemHeading";
import type { ItemPart } from "./problems";
import { enumTitle, inputTypeFor, limitsHint } from "./schemaHints";

function Control({
  item,
  draft,
  onChange,
  inputId,
  describedBy,
  invalid,
  disabled,
}: {
  item: FreeFormQuestion;
  draft: FreeDraft;
  onChange: (draft: FreeDraft) => void;
  inputId: string;
  describedBy: string | undefined;
  invalid: boolean;
  disabled: boolean;
}) {
  const { schema } = item;
  const common = {
    id: inputId,
    disabled,
    "aria-describedby": describedBy,
    "aria-invalid": invalid ? true : undefined,
  };
  if (schema.enum) {
    return (
      <select {...common} className="select" value={draft.text} onChange={(event) => onChange({ ...draft, text: event.target.value })}>
        <option value="">Choose…</option>
        {schema.enum.map((value) => (
          <option key={value} value={value}>
            {enumTitle(schema, value)}
          </option>
        ))}
      </select>
    );
  }
  if (schema.type === "boolean") {
    return (
      <div className="toggle">
        <input
          {...common}
          type="checkbox"
          role="switch"
          checked={draft.flag}
          onChange={(event) => onChange({ ...draft, flag: event.target.checked })}
        />
        <span className="toggle-track" aria-hidden="true">
          <span className="toggle-thumb" />
        </span>
        <span className="toggle-text" aria-hidden="true">
          {draft.flag ? "Yes" : "No"}
        </span>
      </div>
    );
  }
  if (schema.type === "number" || schema.type === "integer") {
    return (
      <input
        {...common}
        className="input input-number"
        type="number"
        inputMode={schema.type === "integer" ? "numeric" : "decimal"}
        min={schema.minimum}
        max={schema.maximum}
        step={schema.type === "integer" ? 1 : "any"}
        value={draft.text}
        onChange={(event) => onChange({ ...draft, text: event.target.value })}
      />
    );
  }
  const type = inputTypeFor(schema);
  if (type === "text" && (schema.maxLength === undefined || schema.maxLength > 120)) {
    return (
      <textarea
        {...common}
        className="input"
        rows={3}
        minLength={schema.minLength}
        maxLength={schema.maxLength}
        placeholder="Type your answer"
        value={draft.text}
        onChange={(event) => onChange({ ...draft, text: event.target.value })}
      />
    );
  }
  return (
    <input
      {...common}
      className="input"
      type={type}
      minLength={schema.minLength}
      maxLength={schema.maxLength}
      // No `pattern` attribute: the browser would run the agent's pattern through its
      // backtracking engine on every keystroke, and `(a+)+b` would freeze the window. Beckon
      // checks it in linear time when the answer is submitted, and shows what is wrong here.
      placeholder={type === "email" ? "name@example.com" : type === "url" ? "https://" : undefined}
      value={draft.text}
      onChange={(event) => onChange({ ...draft, text: event.target.value })}
    />
  );
}

/** A free-form question drawn from its schema: select, number, toggle or text of the right type. */
export function FreeFormField({
  item,
  index,
  draft,
  onChange,
  errors,
  disabled,
}: {
  item: FreeFormQuestion;
  index: number;
  draft: FreeDraft;
  onChange: (draft: FreeDraft) => void;
  errors: Partial<Record<ItemPart, string[]>>;
  disabled: boolean;
}) {
  const id = useId();
  const inputId = `${id}-input`;
  const hintId = `${id}-hint`;
  const errorId = `${id}-errors`;
  const valueErrors = [...(errors.item ?? []), ...(errors.value ?? [])];
  const hint = [item.schema.description, limitsHint(item.schema)].filter(Boolean).join(" · ");
  const describedBy = [hint ? hintId : null, valueErrors.length > 0 ? errorId : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className="qitem" role="group" aria-labelledby={`${id}-q`} data-item-index={index}>
      <ItemHeading header={item.header} question={item.question} id={`${id}-q`} htmlFor={inputId} />
      {item.schema.title && item.schema.title !== item.question ? <p className="qhint">{item.schema.title}</p> : null}
      <div className="free-control">
        <Control
          item={item}
          draft={draft}
          onChange={onChange}
          inputId={inputId}
          describedBy={describedBy}
          invalid={valueErrors.length > 0}
          disabled={disabled}
        />
      </div>
      {hint ? (
        <p className="qhint" id={hintId}>
          {hint}
        </p>
      ) : null}
      <FieldErrors id={errorId} messages={valueErrors} />
      <CommentField
        value={draft.comment}
        onChange={(comment) => onChange({ ...draft, comment })}
        errors={errors.comment}
        disabled={disabled}
      />
    </div>
  );
}
