import { useToasts } from "../../state/toasts";
import { Icon } from "./Icon";

/** Failed commands, as small notes in a corner that never block the window. */
export function Toasts() {
  const { toasts, dismiss } = useToasts();
  return (
    <div className="toasts">
      {toasts.map((toast) => (
        <div key={toast.id} className="toast" role="alert">
          <Icon name="alert" size={15} />
          <p>{toast.message}</p>
          <button type="button" className="icon-button" aria-label="Dismiss" onClick={() => dismiss(toast.id)}>
            <Icon name="x" size={14} />
          </button>
        </div>
      ))}
    </div>
  );
}
