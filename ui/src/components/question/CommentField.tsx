import { useId, useState } from "react";
import { FieldErrors } from "./FieldErrors";

/** The optional comment of an item: a small link that opens a text area. */
export function CommentField({
  value,
  onChange,
  errors,
  disabled,
}: {
  value: string;
  onChange: (value: string) => void;
  errors: readonly string[] | undefined;
  disabled: boolean;
}) {
  const [opened, setOpened] = useState(false);
  const id = useId();
  const open = opened || value !== "" || (errors?.length ?? 0) > 0;
  if (!open) {
    return (
      <button type="button" className="link-button comment-toggle" onClick={() => setOpened(true)} disabled={disabled}>
        Add a comment
      </button>
    );
  }
  const errorId = `${id}-errors`;
  return (
    <div className="comment-field">
      <label htmlFor={id} className="field-label">
        Comment <span className="muted">(optional)</span>
      </label>
      <textarea
        id={id}
        rows={2}
        value={value}
        disabled={disabled}
        aria-invalid={errors?.length ? true : undefined}
        aria-describedby={errors?.length ? errorId : undefined}
        onChange={(event) => onChange(event.target.value)}
        // Opened on request: the person wants to type here now.
        autoFocus={opened && value === ""}
      />
      <FieldErrors id={errorId} messages={errors} />
    </div>
  );
}
