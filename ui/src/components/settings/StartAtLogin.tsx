import { useId } from "react";
import { useExternalSetting } from "../../hooks/useExternalSetting";
import { useBackendHandles } from "../../state/store";

/**
 * "Start Beckon when I log in": a switch that acts at once, since it writes the system's login
 * item rather than a setting. Beckon then starts hidden, in the tray.
 */
export function StartAtLogin() {
  const { api } = useBackendHandles();
  const { value: on, busy, error, change } = useExternalSetting(api.startAtLogin, api.setStartAtLogin);
  const id = useId();

  return (
    <div className="settings-row start-at-login">
      <label htmlFor={`${id}-login`}>Start Beckon when I log in</label>
      <div className="settings-control">
        <div className="toggle">
          <input
            id={`${id}-login`}
            type="checkbox"
            role="switch"
            checked={on ?? false}
            disabled={on === null || busy}
            aria-describedby={`${id}-login-hint`}
            onChange={(event) => void change(event.target.checked)}
          />
          <span className="toggle-track" aria-hidden="true">
            <span className="toggle-thumb" />
          </span>
          <span className="toggle-text" aria-hidden="true">
            {on ? "On" : "Off"}
          </span>
        </div>
        <p className="qhint" id={`${id}-login-hint`}>
          Beckon starts in the tray without opening this window; the tray, a notification or a beckon:// link opens it.
        </p>
        {error ? (
          <p className="field-error" role="alert">
            {error}
          </p>
        ) : null}
      </div>
    </div>
  );
}
