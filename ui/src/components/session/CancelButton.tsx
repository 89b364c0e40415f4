import { useEffect, useState } from "react";
import { Spinner } from "../common/Spinner";

const CONFIRM_WINDOW_MS = 4_000;

/** Cancels a session in two clicks, so a stray click does not end an agent's work. */
export function CancelButton({ onCancel }: { onCancel: () => Promise<void> }) {
  const [stage, setStage] = useState<"idle" | "confirm" | "busy">("idle");
  useEffect(() => {
    if (stage !== "confirm") return;
    const timer = window.setTimeout(() => setStage("idle"), CONFIRM_WINDOW_MS);
    return () => window.clearTimeout(timer);
  }, [stage]);
  if (stage === "busy") {
    return (
      <button type="button" className="button button-danger-quiet" disabled>
        <Spinner />
        Cancelling…
      </button>
    );
  }
  return stage === "confirm" ? (
    <button
      type="button"
      className="button button-danger"
      onClick={async () => {
        setStage("busy");
        await onCancel();
        setStage("idle");
      }}
    >
      Really cancel?
    </button>
  ) : (
    <button type="button" className="button button-danger-quiet" onClick={() => setStage("confirm")}>
      Cancel session
    </button>
  );
}
