import { useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from "react";
import { KEY_LIST } from "./inboxKeys";

const TABBABLE = "button:not([disabled]), input:not([disabled]), textarea:not([disabled]), select:not([disabled]), a[href], [tabindex='0']";

/** Keeps `Tab` inside `box`: from its last stop to its first, and back with `Shift+Tab`. */
function keepTabInside(box: HTMLElement, event: KeyboardEvent<HTMLElement>): void {
  const stops = [...box.querySelectorAll<HTMLElement>(TABBABLE)];
  const first = stops[0];
  const last = stops[stops.length - 1];
  if (!first || !last) return;
  const active = document.activeElement;
  if (event.shiftKey && (active === first || active === box)) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && active === last) {
    event.preventDefault();
    first.focus();
  }
}

/** A small modal box: focus moves in when it opens and stays in it, Escape closes it. */
export function Dialog({ title, onClose, children, className }: { title: string; onClose: () => void; children: ReactNode; className?: string }) {
  const ref = useRef<HTMLDivElement | null>(null);
  useEffect(() => {
    const box = ref.current;
    const first = box?.querySelector<HTMLElement>("[data-autofocus]") ?? box;
    first?.focus();
  }, []);
  return (
    <div className="dialog-backdrop" onClick={onClose}>
      <div
        ref={ref}
        role="dialog"
        aria-modal="true"
        aria-label={title}
        tabIndex={-1}
        className={`dialog${className ? ` ${className}` : ""}`}
        onClick={(event) => event.stopPropagation()}
        onKeyDown={(event) => {
          event.stopPropagation();
          if (event.key === "Escape") onClose();
          else if (event.key === "Tab" && ref.current) keepTabInside(ref.current, event);
        }}
      >
        <h2 className="dialog-title">{title}</h2>
        {children}
      </div>
    </div>
  );
}

/** The list of triage keys. */
export function KeyHelp({ onClose }: { onClose: () => void }) {
  return (
    <Dialog title="Keyboard" onClose={onClose} className="key-help">
      <dl className="key-list">
        {KEY_LIST.map(([keys, what]) => (
          <div key={keys}>
            <dt>
              <kbd>{keys}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <p className="muted">Keys act on the highlighted row while the list has focus, never while you type in a field.</p>
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onClose} data-autofocus>
          Close
        </button>
      </div>
    </Dialog>
  );
}

/** Asks for the optional message sent with a denial; Enter sends. */
export function DenyPrompt({ what, onDeny, onClose }: { what: string; onDeny: (message: string) => void; onClose: () => void }) {
  const [message, setMessage] = useState("");
  return (
    <Dialog title="Deny" onClose={onClose} className="deny-prompt">
      <p className="dialog-what">
        <code>{what}</code>
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          onDeny(message);
        }}
      >
        <label className="field-label" htmlFor="deny-prompt-message">
          Message to the agent <span className="muted">(optional)</span>
        </label>
        <input id="deny-prompt-message" type="text" value={message} onChange={(event) => setMessage(event.target.value)} data-autofocus />
        <div className="dialog-actions">
          <button type="button" className="button button-quiet" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button-danger">
            Deny
          </button>
        </div>
      </form>
    </Dialog>
  );
}
