import { useId } from "react";
import type { ClaudeCodeView } from "../../bindings/ClaudeCodeView";
import { useExternalSetting } from "../../hooks/useExternalSetting";
import { useBackendHandles } from "../../state/store";
import { Spinner } from "../common/Spinner";

const STATE_TEXT: Record<ClaudeCodeView["state"], string> = {
  connected: "Connected: Claude Code's permission prompts and questions come here while Beckon runs.",
  out_of_date: "Out of date: Claude Code's settings run another beckon, or miss part of the setup.",
  not_connected: "Not connected: Claude Code asks only in its terminal.",
  unavailable: "Cannot connect from here.",
};

/**
 * "Connect Claude Code": where Claude Code stands (connected, out of date, not connected) and
 * the action that writes — or takes out — the same configuration as `beckon setup claude-code`.
 */
export function ClaudeCodeConnection({ legend = "Claude Code" }: { legend?: string }) {
  const { api } = useBackendHandles();
  const { value: view, busy, error, change } = useExternalSetting(api.claudeCodeStatus, api.connectClaudeCode);
  const id = useId();

  return (
    <fieldset className="settings-group" aria-labelledby={`${id}-title`}>
      <legend id={`${id}-title`}>{legend}</legend>
      <p className="claude-code-state" data-state={view?.state ?? "loading"} role="status">
        {view ? STATE_TEXT[view.state] : "Looking at Claude Code's settings…"}
      </p>
      {view?.problem ? <p className="form-error">{view.problem}</p> : null}
      {error ? <p className="form-error">{error}</p> : null}
      {view?.settings_file ? (
        <p className="qhint">
          Settings: <code>{view.settings_file}</code>
          {view.program ? (
            <>
              {" "}
              · runs <code>{view.program}</code>
            </>
          ) : null}
        </p>
      ) : null}
      <div className="claude-code-actions">
        {view && view.state !== "unavailable" && view.state !== "connected" ? (
          <button type="button" className="button button-primary" onClick={() => void change(false)} disabled={busy}>
            {busy ? <Spinner /> : null}
            {view.state === "out_of_date" ? "Update Claude Code's settings" : "Connect Claude Code"}
          </button>
        ) : null}
        {view && (view.state === "connected" || view.state === "out_of_date") ? (
          <button type="button" className="button button-quiet" onClick={() => void change(true)} disabled={busy}>
            Disconnect
          </button>
        ) : null}
      </div>
    </fieldset>
  );
}
