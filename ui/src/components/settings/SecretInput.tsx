/**
 * A stored secret (an API key, a bot token) as the settings edit it: never shown, only whether
 * one is set. `value` null keeps the stored one, "" clears it, anything else replaces it.
 */
export function SecretInput({
  id,
  name,
  set,
  fromEnv = false,
  value,
  placeholder,
  invalid = false,
  describedBy,
  onChange,
}: {
  id: string;
  /** What the secret is ("API key"), for the Clear button's name. */
  name: string;
  set: boolean;
  fromEnv?: boolean;
  value: string | null;
  placeholder: string;
  invalid?: boolean;
  describedBy?: string;
  onChange: (value: string | null) => void;
}) {
  const clearing = value === "";
  const status = clearing ? "will be cleared" : fromEnv ? "from environment" : set ? "set" : "not set";
  return (
    <div className="key-row">
      <input
        id={id}
        className="input"
        type="password"
        autoComplete="off"
        spellCheck={false}
        placeholder={clearing ? "Will be cleared" : set ? "•••••••• (unchanged)" : placeholder}
        value={value ?? ""}
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy}
        onChange={(event) => onChange(event.target.value === "" ? null : event.target.value)}
      />
      <span className={`key-status${set ? " key-set" : ""}`}>{status}</span>
      {set && !fromEnv && !clearing ? (
        <button type="button" className="link-button" aria-label={`Clear the ${name}`} onClick={() => onChange("")}>
          Clear
        </button>
      ) : null}
    </div>
  );
}
