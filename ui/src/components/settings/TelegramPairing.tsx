import { useEffect, useId, useState } from "react";
import type { TelegramPairing } from "../../bindings/TelegramPairing";
import { errorBodyOf } from "../../api/errors";
import { useBackendHandles } from "../../state/store";
import { Spinner } from "../common/Spinner";

/**
 * Telegram's pairing: the code to send to the bot as `/start <code>`, read when the bot token is
 * saved, and the chat paired so far (read again on request).
 */
export function TelegramPairingBox({ tokenSet, enabled }: { tokenSet: boolean; enabled: boolean }) {
  const { api } = useBackendHandles();
  const [pairing, setPairing] = useState<TelegramPairing | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();

  useEffect(() => {
    if (!tokenSet) return;
    let live = true;
    api.telegramPairing().then(
      (found) => {
        if (!live) return;
        setPairing(found);
        setError(null);
      },
      (failure: unknown) => live && setError(errorBodyOf(failure).message),
    );
    return () => {
      live = false;
    };
  }, [api, tokenSet]);

  if (!tokenSet) return <p className="qhint">Save a bot token, then pair the chat that should get the questions.</p>;

  const refresh = async () => {
    setBusy(true);
    setNote(null);
    try {
      setPairing(await api.telegramPairing());
      setError(null);
    } catch (failure) {
      setError(errorBodyOf(failure).message);
    }
    setBusy(false);
  };

  const copy = async (command: string) => {
    try {
      await navigator.clipboard.writeText(command);
      setNote("Copied.");
    } catch {
      const code = document.getElementById(`${id}-command`);
      if (code) window.getSelection()?.selectAllChildren(code);
      setNote("Copying was refused here; the command is selected, press Ctrl+C.");
    }
  };

  const command = pairing ? `/start ${pairing.code}` : null;
  return (
    <div className="pairing" role="group" aria-label="Telegram pairing">
      {command === null ? (
        error ? null : <Spinner label="Making a pairing code" />
      ) : (
        <>
          <div className="key-row">
            <p className="pairing-command">
              Send <code id={`${id}-command`}>{command}</code> to your bot.
            </p>
            <button type="button" className="button button-small" onClick={() => void copy(command)}>
              Copy
            </button>
            <button type="button" className="button button-small button-quiet" disabled={busy} onClick={() => void refresh()}>
              {busy ? <Spinner /> : null}
              Refresh
            </button>
          </div>
          <p className="qhint">
            {pairing?.chat ? (
              <>
                Paired with chat <code>{pairing.chat}</code>.
              </>
            ) : (
              "Not paired yet: once the bot has the code, press Refresh."
            )}
            {enabled ? "" : " Telegram must be on (and saved) for the bot to hear it."}
          </p>
        </>
      )}
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
      {note ? (
        <p className="qhint" role="status">
          {note}
        </p>
      ) : null}
    </div>
  );
}
