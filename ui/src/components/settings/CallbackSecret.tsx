import { useId, useState } from "react";
import { useActions } from "../../state/store";
import { Icon } from "../common/Icon";

type Shown =
  | { kind: "hidden" }
  | { kind: "shown"; secret: string }
  | { kind: "confirm-rotate"; secret: string | null }
  | { kind: "error"; message: string };

/**
 * The secret Beckon signs callbacks with (`Beckon-Signature`). It is read from the backend only
 * when the person asks to see it, never kept in the window's state, and hidden again on request.
 */
export function CallbackSecret() {
  const { callbackSecret, rotateCallbackSecret } = useActions();
  const [shown, setShown] = useState<Shown>({ kind: "hidden" });
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();

  const reveal = async () => {
    setBusy(true);
    const result = await callbackSecret();
    setBusy(false);
    setNote(null);
    setShown(result.ok ? { kind: "shown", secret: result.secret } : { kind: "error", message: result.error.message });
  };

  const rotate = async () => {
    setBusy(true);
    const result = await rotateCallbackSecret();
    setBusy(false);
    if (result.ok) {
      setShown({ kind: "shown", secret: result.secret });
      setNote("A new secret signs every callback from now on. Give it to your receivers.");
    } else {
      setShown({ kind: "error", message: result.error.message });
    }
  };

  const copy = async (secret: string) => {
    try {
      await navigator.clipboard.writeText(secret);
      setNote("Copied.");
    } catch {
      const field = document.getElementById(`${id}-secret`);
      if (field instanceof HTMLInputElement) field.select();
      setNote("Copying was refused here; the secret is selected, press Ctrl+C.");
    }
  };

  const secret = shown.kind === "shown" ? shown.secret : shown.kind === "confirm-rotate" ? shown.secret : null;
  return (
    <fieldset className="settings-group">
      <legend>Callbacks</legend>
      <div className="settings-row">
        <label htmlFor={`${id}-secret`}>Signing secret</label>
        <div className="settings-control">
          <div className="key-row">
            {secret === null ? (
              <button type="button" className="button button-small" disabled={busy} onClick={() => void reveal()}>
                <Icon name="eye" size={14} />
                Show secret
              </button>
            ) : (
              <>
                <input id={`${id}-secret`} className="input input-mono" type="text" readOnly value={secret} spellCheck={false} />
                <button type="button" className="button button-small" onClick={() => void copy(secret)}>
                  Copy
                </button>
                <button
                  type="button"
                  className="link-button"
                  onClick={() => {
                    setShown({ kind: "hidden" });
                    setNote(null);
                  }}
                >
                  Hide
                </button>
              </>
            )}
            {shown.kind === "confirm-rotate" ? null : (
              <button
                type="button"
                className="button button-small button-danger-quiet"
                disabled={busy}
                onClick={() => setShown({ kind: "confirm-rotate", secret })}
              >
                Rotate…
              </button>
            )}
          </div>
          {shown.kind === "confirm-rotate" ? (
            <div className="confirm-row" role="group" aria-label="Rotate the signing secret">
              <p className="qhint">
                A new secret replaces this one at once: receivers that check the old one refuse every callback until they are given
                the new one.
              </p>
              <button type="button" className="button button-small button-danger" disabled={busy} onClick={() => void rotate()}>
                Rotate now
              </button>
              <button
                type="button"
                className="button button-small button-quiet"
                onClick={() => setShown(shown.secret === null ? { kind: "hidden" } : { kind: "shown", secret: shown.secret })}
              >
                Keep this one
              </button>
            </div>
          ) : null}
          {shown.kind === "error" ? (
            <p className="field-error" role="alert">
              {shown.message}
            </p>
          ) : null}
          {note ? (
            <p className="qhint" role="status">
              {note}
            </p>
          ) : null}
          <p className="qhint">
            Beckon signs each callback it sends with this secret (the <code>Beckon-Signature</code> header), so a receiver can check
            that it came from Beckon. <code>beckon status --secret</code> prints it too.
          </p>
        </div>
      </div>
    </fieldset>
  );
}
