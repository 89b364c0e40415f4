import { useId, useState } from "react";
import { errorBodyOf } from "../../api/errors";
import type { TeamInboxView } from "../../bindings/TeamInboxView";
import type { TeamStatus } from "../../bindings/TeamStatus";
import { useAppSelector, useBackendHandles } from "../../state/store";
import { Spinner } from "../common/Spinner";

/** What an inbox's line says of where it stands. */
export function statusText(status: TeamStatus): string {
  switch (status.state) {
    case "signing_in":
      return "Finish signing in in your browser…";
    case "connecting":
      return "Connecting…";
    case "live":
      return "Connected";
    case "signed_out":
      return status.problem ? `Signed out (${status.problem}). Sign in again.` : "Signed out. Sign in again.";
    case "unreachable":
      return `Cannot be reached (${status.problem}); trying again.`;
  }
}

function InboxLine({ inbox, onSignIn, onRemove, busy }: { inbox: TeamInboxView; onSignIn: () => void; onRemove: () => void; busy: boolean }) {
  const signedOut = inbox.status.state === "signed_out";
  return (
    <li className="team-inbox" data-team-inbox={inbox.name} data-state={inbox.status.state}>
      <div>
        <strong>{inbox.name}</strong> <code>{inbox.url}</code>
        {inbox.signed_in_as ? <span className="muted"> · as {inbox.signed_in_as}</span> : null}
      </div>
      <p className={`qhint team-inbox-status${signedOut || inbox.status.state === "unreachable" ? " form-error" : ""}`} role="status">
        {statusText(inbox.status)}
      </p>
      <div className="key-row">
        {signedOut ? (
          <button type="button" className="button button-small button-primary" disabled={busy} onClick={onSignIn}>
            Sign in again
          </button>
        ) : null}
        <button type="button" className="button button-small" disabled={busy} onClick={onRemove}>
          Remove
        </button>
      </div>
    </li>
  );
}

/**
 * Settings › Inboxes: the team inboxes this app is connected to. Adding one opens the browser on
 * the team server's sign-in; its questions then show beside this machine's, marked with its name.
 */
export function TeamInboxes() {
  const { api } = useBackendHandles();
  const inboxes = useAppSelector((state) => state.teamInboxes);
  const id = useId();
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const run = async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
      return true;
    } catch (failure) {
      setError(errorBodyOf(failure).message);
      return false;
    } finally {
      setBusy(false);
    }
  };

  const add = async () => {
    if (await run(() => api.addTeamInbox(name, url))) {
      setName("");
      setUrl("");
    }
  };

  return (
    <fieldset className="settings-group team-inboxes" aria-labelledby={`${id}-title`}>
      <legend id={`${id}-title`}>Inboxes</legend>
      <p className="qhint">Team inboxes: questions a team server addresses to you, shown and answered here as you.</p>
      {inboxes.length > 0 ? (
        <ul className="team-inbox-list">
          {inboxes.map((inbox) => (
            <InboxLine
              key={inbox.id}
              inbox={inbox}
              busy={busy}
              onSignIn={() => void run(() => api.signInTeamInbox(inbox.id))}
              onRemove={() => void run(() => api.removeTeamInbox(inbox.id))}
            />
          ))}
        </ul>
      ) : null}
      <div className="key-row">
        <label>
          Name
          <input id={`${id}-name`} value={name} placeholder="Acme" onChange={(event) => setName(event.target.value)} />
        </label>
        <label>
          Address
          <input id={`${id}-url`} value={url} placeholder="https://beckon.example.com" onChange={(event) => setUrl(event.target.value)} />
        </label>
        <button type="button" className="button button-small" disabled={busy || !name.trim() || !url.trim()} onClick={() => void add()}>
          {busy ? <Spinner /> : null}
          Add a team inbox
        </button>
      </div>
      {error ? <p className="form-error" role="alert">{error}</p> : null}
    </fieldset>
  );
}
