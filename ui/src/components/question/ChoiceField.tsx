import { useId, useState } from "react";
import type { ChoiceQuestion } from "../../bindings/ChoiceQuestion";
import { Markdown } from "../common/Markdown";
import { CommentField } from "./CommentField";
import type { ChoiceDraft } from "./draft";
import { pickOption } from "./draft";
import { FieldErrors } from "./FieldErrors";
import { ItemHeading } from "./ItemHeading";
import type { ItemPart } from "./problems";

/**
 * A question with options: radio buttons (single-select) or checkboxes (multi-select), each
 * with its number key, then "Other" with a text field, then an optional comment. An option's
 * preview shows under the options while the option is focused or hovered, else the chosen
 * one's.
 */
export function ChoiceField({
  item,
  index,
  draft,
  onChange,
  errors,
  disabled,
}: {
  item: ChoiceQuestion;
  index: number;
  draft: ChoiceDraft;
  onChange: (draft: ChoiceDraft) => void;
  errors: Partial<Record<ItemPart, string[]>>;
  disabled: boolean;
}) {
  const id = useId();
  const labels = item.options.map((option) => option.label);
  const type = item.multiSelect ? "checkbox" : "radio";
  const headingId = `${id}-q`;
  const optionErrorId = `${id}-errors`;
  const otherErrorId = `${id}-other-errors`;
  const optionErrors = [...(errors.item ?? []), ...(errors.selected ?? [])];
  const pick = (position: number) => onChange(pickOption(draft, labels, position, item.multiSelect));
  const otherNumber = labels.length + 1;
  const [looking, setLooking] = useState<number | null>(null);
  const chosen = item.options.findIndex((option) => draft.selected.includes(option.label) && option.preview);
  const previewed = looking !== null && item.options[looking]?.preview ? looking : chosen >= 0 ? chosen : null;
  const preview = previewed === null ? null : item.options[previewed];

  return (
    <div
      className="qitem"
      role="group"
      aria-labelledby={headingId}
      aria-describedby={optionErrors.length > 0 ? optionErrorId : undefined}
      data-item-index={index}
      data-choice="true"
    >
      <ItemHeading header={item.header} question={item.question} id={headingId} />
      {item.multiSelect ? <p className="qhint">Choose any that apply.</p> : null}
      <div className={`options${optionErrors.length > 0 ? " invalid" : ""}`}>
        {item.options.map((option, position) => {
          const checked = draft.selected.includes(option.label);
          const descriptionId = option.description ? `${id}-d${position}` : undefined;
          return (
            <label
              key={option.label}
              className={`option${checked ? " checked" : ""}${option.preview ? " has-preview" : ""}`}
              onMouseEnter={() => setLooking(position)}
              onMouseLeave={() => setLooking(null)}
            >
              <input
                type={type}
                name={`${id}-choice`}
                checked={checked}
                disabled={disabled}
                aria-describedby={descriptionId}
                onChange={() => pick(position)}
                onFocus={() => setLooking(position)}
                onBlur={() => setLooking(null)}
              />
              <span className="option-body">
                <span className="option-label">{option.label}</span>
                {option.description ? (
                  <span className="option-desc" id={descriptionId}>
                    {option.description}
                  </span>
                ) : null}
              </span>
              {position < 9 ? (
                <kbd className="option-key" aria-hidden="true">
                  {position + 1}
                </kbd>
              ) : null}
            </label>
          );
        })}
        <div className={`option option-other${draft.otherOn ? " checked" : ""}`}>
          <input
            type={type}
            name={`${id}-choice`}
            id={`${id}-other-choice`}
            checked={draft.otherOn}
            disabled={disabled}
            onChange={() => pick(labels.length)}
          />
          <span className="option-body">
            <label className="option-label" htmlFor={`${id}-other-choice`}>
              Other
            </label>
            <input
              type="text"
              className="other-input"
              data-other-input="true"
              aria-label="Other answer"
              placeholder="Write your own answer"
              value={draft.other}
              disabled={disabled}
              aria-invalid={errors.other?.length ? true : undefined}
              aria-describedby={errors.other?.length ? otherErrorId : undefined}
              onChange={(event) => {
                const other = event.target.value;
                const turnOn = other !== "" && !draft.otherOn;
                onChange(turnOn ? { ...pickOption(draft, labels, labels.length, item.multiSelect), other } : { ...draft, other });
              }}
            />
            <FieldErrors id={otherErrorId} messages={errors.other} />
          </span>
          {otherNumber <= 9 ? (
            <kbd className="option-key" aria-hidden="true">
              {otherNumber}
            </kbd>
          ) : null}
        </div>
      </div>
      {preview?.preview ? (
        <figure className="option-preview" aria-label={`Preview of ${preview.label}`} aria-live="polite">
          <Markdown text={preview.preview} />
        </figure>
      ) : null}
      <FieldErrors id={optionErrorId} messages={optionErrors} />
      <CommentField
        value={draft.comment}
        onChange={(comment) => onChange({ ...draft, comment })}
        errors={errors.comment}
        disabled={disabled}
      />
    </div>
  );
}
