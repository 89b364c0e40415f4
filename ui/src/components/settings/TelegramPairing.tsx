import { useEffect, useId, useState } from "react";
import type { TelegramPairing } from "../../bindings/TelegramPairing";
import { errorBodyOf } from "../../api/errors";
import { useBackendHandles } from "../../state/store";
import { Spinner } from "../common/Spinner";

/** The time of day a code stops being good, as the person's clock shows it. */
function until(ms: number): string {
  return new Date(ms).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

/**
 * Telegram's pairing: the chat paired so far, a code only when the person asks for one ("Pair a
 * chat"), and a chat that used a code while another is paired, which replaces it only once the
 * person confirms it here. Reading the pairing makes no code.
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

  /** Runs `action` (a command that returns the pairing) and shows what it returns. */
  const act = async (action: () => Promise<TelegramPairing>) => {
    setBusy(true);
    setNote(null);
    try {
      setPairing(await action());
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

  if (pairing === null) return error ? <p className="field-error" role="alert">{error}</p> : <Spinner label="Reading the pairing" />;

  const command = pairing.code ? `/start ${pairing.code}` : null;
  const request = pairing.request;
  return (
    <div className="pairing" role="group" aria-label="Telegram pairing">
      <p className="qhint">
        {pairing.chat ? (
          <>
            Paired with chat <code>{pairing.chat}</code>.
          </>
        ) : (
          "No chat is paired yet."
        )}
        {enabled ? "" : " Telegram must be on (and saved) for the bot to hear it."}
      </p>
      {request ? (
        <div className="confirm-row" role="group" aria-label="Replace the paired chat">
          <p className="qhint">
            Chat <code>{request.chat}</code>
            {request.name ? ` (${request.name})` : ""} wants to replace chat <code>{pairing.chat}</code>. Confirm only if you sent the code from
            it: questions will go there instead, and chat {pairing.chat} will be told it is no longer paired.
          </p>
          <button type="button" className="button button-small" disabled={busy} onClick={() => void act(() => api.confirmTelegramChat(request.chat))}>
            Confirm
          </button>
          <button type="button" className="button button-small button-quiet" disabled={busy} onClick={() => void act(() => api.refuseTelegramChat(request.chat))}>
            Refuse
          </button>
        </div>
      ) : null}
      {command !== null && pairing.code_expires_at_ms !== null ? (
        <div className="key-row">
          <p className="pairing-command">
            Send <code id={`${id}-command`}>{command}</code> to your bot before {until(pairing.code_expires_at_ms)}.
          </p>
          <button type="button" className="button button-small" onClick={() => void copy(command)}>
            Copy
          </button>
        </div>
      ) : null}
      <div className="key-row">
        <button type="button" className="button button-small" disabled={busy} onClick={() => void act(api.newTelegramPairingCode)}>
          {busy ? <Spinner /> : null}
          {pairing.chat ? "Pair another chat" : "Pair a chat"}
        </button>
        <button type="button" className="button button-small button-quiet" disabled={busy} onClick={() => void act(api.telegramPairing)}>
          Refresh
        </button>
      </div>
      {command !== null ? (
        <p className="qhint">The code works once, for ten minutes.{pairing.chat ? " A new chat replaces the paired one only once you confirm it here." : " Once the bot has it, press Refresh."}</p>
      ) : null}
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
