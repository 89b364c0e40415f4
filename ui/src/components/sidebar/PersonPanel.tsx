import { useState } from "react";
import { allowNotifications, notificationState, type NotificationState } from "../../api/browserNotifications";
import { signOut, type SignedInPerson } from "../../api/transport";
import { ChannelPairing } from "./ChannelPairing";

const NOTIFICATIONS: Record<NotificationState, string | null> = {
  unsupported: "This browser cannot show notifications.",
  denied: "Notifications are blocked for this site in the browser's settings.",
  granted: "Notifications are on for questions addressed to you.",
  default: null,
};

/**
 * Who is signed in to the team server, turning its notifications on (the browser asks only
 * when the person presses the button), pairing their own Slack account, and signing out. Only
 * in a browser.
 */
export function PersonPanel({ person }: { person: SignedInPerson }) {
  const [notifications, setNotifications] = useState<NotificationState>(notificationState);
  const [leaving, setLeaving] = useState(false);
  const said = NOTIFICATIONS[notifications];
  return (
    <section className="person-panel" aria-label="Signed in">
      <p className="person-name">
        {person.name ?? person.email ?? person.subject}
        {person.admin ? <span className="person-role"> · admin</span> : null}
      </p>
      {said ? (
        <p className="person-hint">{said}</p>
      ) : (
        <button type="button" className="button button-quiet" onClick={() => void allowNotifications().then(setNotifications)}>
          Turn on notifications
        </button>
      )}
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
