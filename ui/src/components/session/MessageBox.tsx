import { useId, useState, type ReactNode } from "react";
import { Icon } from "../common/Icon";
import { Spinner } from "../common/Spinner";

/**
 * A message text area with a send button: Enter sends, Shift+Enter makes a new line. `onSend`
 * resolves true when the text was accepted (then the box clears).
 */
export function MessageBox({
  label,
  placeholder,
  sendLabel,
  onSend,
  disabled = false,
  children,
}: {
  label: string;
  placeholder: string;
  sendLabel: string;
  onSend: (text: string) => Promise<boolean>;
  disabled?: boolean;
  children?: ReactNode;
}) {
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const id = useId();
  const send = async () => {
    const message = text.trim();
    if (message === "" || busy || disabled) return;
    setBusy(true);
    const accepted = await onSend(message);
    setBusy(false);
    if (accepted) setText("");
  };
  return (
    <form
      className="message-box"
      onSubmit={(event) => {
        event.preventDefault();
        void send();
      }}
    >
      <label htmlFor={id} className="visually-hidden">
        {label}
      </label>
      <textarea
        id={id}
        rows={2}
        value={text}
        placeholder={placeholder}
        disabled={disabled || busy}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
            event.preventDefault();
            void send();
          }
        }}
      />
      <div className="message-box-bar">
        {children}
        <span className="spacer" />
        <button type="submit" className="button button-primary" disabled={disabled || busy || text.trim() === ""}>
          {busy ? <Spinner /> : <Icon name="send" size={14} />}
          {sendLabel}
        </button>
      </div>
    </form>
  );
}
