import { Icon } from "./Icon";

/** A message from outside the window (a malformed link, say), until dismissed. */
export function ProblemBanner({ message, onDismiss }: { message: string; onDismiss: () => void }) {
  return (
    <div className="banner" role="alert">
      <Icon name="alert" size={16} />
      <p className="prose-text">{message}</p>
      <button type="button" className="button button-small" onClick={onDismiss}>
        Dismiss
      </button>
    </div>
  );
}
