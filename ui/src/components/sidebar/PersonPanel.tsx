import { useEffect, useState } from "react";
import { errorBodyOf } from "../../api/errors";
import { allowNotifications, notificationState, type NotificationState } from "../../api/browserNotifications";
import { signOut, type SignedInPerson } from "../../api/transport";
import { pushState, turnPushOff, turnPushOn, type PushState } from "../../api/webPush";
import { useBackendHandles } from "../../state/store";
import { ChannelPairing } from "./ChannelPairing";

const NOTIFICATIONS: Record<NotificationState, string | null> = {
  unsupported: "This browser cannot show notifications.",
  denied: "Notifications are blocked for this site in the browser's settings.",
  granted: "Notifications are on while this page is open.",
  default: null,
};

const PUSHES: Record<Exclude<PushState, "unsupported">, string | null> = {
  denied: "Notifications are blocked for this site in the browser's settings.",
  on: "Notifications are on for this device, also when Beckon is closed.",
  off: null,
};

/**
 * Notifications in this browser: pushed by the server to this device (with the page closed)
 * where the browser can take pushes, else shown while the page is open. The browser asks only
 * when the person presses the button.
 */
function Notifications() {
  const { api } = useBackendHandles();
  const [push, setPush] = useState<PushState | null>(null);
  const [page, setPage] = useState<NotificationState>(notificationState);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    void pushState().then((state) => live && setPush(state));
    return () => {
      live = false;
    };
  }, []);

  const change = (work: () => Promise<PushState>) => {
    setBusy(true);
    setError(null);
    work()
      .then(setPush, (failure: unknown) => setError(errorBodyOf(failure).message))
      .finally(() => setBusy(false));
  };

  if (push === null) return null;
  if (push === "unsupported") {
    const said = NOTIFICATIONS[page];
    return said ? (
      <p className="person-hint">{said}</p>
    ) : (
      <button type="button" className="button button-quiet" onClick={() => void allowNotifications().then(setPage)}>
        Turn on notifications
      </button>
    );
  }
  const said = PUSHES[push];
  return (
    <>
      {said ? <p className="person-hint">{said}</p> : null}
      {push === "off" ? (
        <button type="button" className="button button-quiet" disabled={busy} onClick={() => change(() => turnPushOn(api))}>
          Turn on notifications
        </button>
      ) : null}
      {push === "on" ? (
        <button type="button" className="button button-quiet" disabled={busy} onClick={() => change(() => turnPushOff(api))}>
          Turn off on this device
        </button>
      ) : null}
      {error ? (
        <p className="person-hint" role="alert">
          Notifications could not be turned on: {error}
        </p>
      ) : null}
    </>
  );
}

/**
 * Who is signed in to the team server, turning its notifications on for this device, pairing
 * their own Slack account, and signing out. Only in a browser.
 */
export function PersonPanel({ person }: { person: SignedInPerson }) {
  const [leaving, setLeaving] = useState(false);
  return (
    <section className="person-panel" aria-label="Signed in">
      <p className="person-name">
        {person.name ?? person.email ?? person.subject}
        {person.admin ? <span className="person-role"> · admin</span> : null}
      </p>
      <Notifications />
      <ChannelPairing />
      <button
        type="button"
        className="button button-quiet"
        disabled={leaving}
        onClick={() => {
          setLeaving(true);
          void signOut().catch(() => setLeaving(false));
        }}
      >
        Sign out
      </button>
    </section>
  );
}
