import { errorHeading } from "../../api/errors";
import type { ErrorBody } from "../../bindings/ErrorBody";
import { Icon } from "./Icon";

/** The whole window when Beckon cannot work at all (for instance the runtime did not start). */
export function FatalScreen({ error, onRetry }: { error: ErrorBody; onRetry: () => void }) {
  return (
    <main className="fatal" role="alert">
      <Icon name="alert" size={40} />
      <h1>{errorHeading(error.kind)}</h1>
      <p className="prose-text fatal-message">{error.message}</p>
      <button type="button" className="button button-primary" onClick={onRetry}>
        Try again
      </button>
    </main>
  );
}
