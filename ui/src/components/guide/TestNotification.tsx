import { useEffect, useState } from "react";
import type { NotificationTest } from "../../bindings/NotificationTest";
import { errorBodyOf } from "../../api/errors";
import { onTestNotificationPressed } from "../../api/events";
import { useBackendHandles } from "../../state/store";
import { Icon } from "../common/Icon";
import { Spinner } from "../common/Spinner";

type Sent = { kind: "idle" } | { kind: "sending" } | { kind: "sent"; result: NotificationTest } | { kind: "failed"; message: string };

/**
 * "Send a test notification": one with a button, through the same notification service every
 * question's goes through; says whether the service took it, and whether its button's press
 * came back to Beckon.
 */
export function TestNotification() {
  const { api } = useBackendHandles();
  const [sent, setSent] = useState<Sent>({ kind: "idle" });
  const [pressed, setPressed] = useState(false);

  useEffect(() => {
    let live = true;
    let stop: (() => void) | null = null;
    onTestNotificationPressed(() => {
      if (live) setPressed(true);
    })
      .then((unlisten) => {
        if (live) stop = unlisten;
        else unlisten();
      })
      .catch(() => {
        // Without the event bridge the test still says whether the notification was shown.
      });
    return () => {
      live = false;
      stop?.();
    };
  }, []);

  const send = async () => {
    setSent({ kind: "sending" });
    setPressed(false);
    try {
      setSent({ kind: "sent", result: await api.sendTestNotification() });
    } catch (error) {
      setSent({ kind: "failed", message: errorBodyOf(error).message });
    }
  };

  const result = sent.kind === "sent" ? sent.result : null;
  return (
    <div className="guide-test">
      <button type="button" className="button" onClick={() => void send()} disabled={sent.kind === "sending"}>
        {sent.kind === "sending" ? <Spinner /> : null}
        Send a test notification
      </button>
      <div role="status" className="guide-test-result">
        {result?.delivered ? (
          <p className="guide-ok" data-result="delivered">
            <Icon name="check" size={14} />
            The notification service showed it. Press its “It works” button to check that presses reach Beckon.
          </p>
        ) : null}
        {result && !result.delivered ? (
          <p className="field-error" data-result="failed">
            The notification service did not take it{result.problem ? `: ${result.problem}` : "."} Beckon tries again by itself; the tray still counts what waits.
          </p>
        ) : null}
        {sent.kind === "failed" ? (
          <p className="field-error" data-result="failed">
            {sent.message}
          </p>
        ) : null}
        {result?.do_not_disturb ? <p className="qhint">Do not disturb is on: questions stay silent until you turn it off (Settings or the tray).</p> : null}
        {pressed ? (
          <p className="guide-ok" data-result="pressed">
            <Icon name="check" size={14} />
            Your press reached Beckon: a question’s buttons answer it from the notification.
          </p>
        ) : null}
      </div>
    </div>
  );
}
