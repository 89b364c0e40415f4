import { useId } from "react";
import type { ProviderView } from "../../bindings/ProviderView";

/** What the person typed for one provider; `apiKey` null means "keep the current key". */
export interface ProviderDraft {
  apiKey: string | null;
  baseUrl: string;
  model: string;
}

function keyStatus(view: ProviderView): string {
  if (view.key_from_env) return "from environment";
  return view.key_set ? "set" : "not set";
}

/** The key (never shown), base URL and model of one provider. */
export function ProviderFields({
  title,
  view,
  draft,
  onChange,
}: {
  title: string;
  view: ProviderView;
  draft: ProviderDraft;
  onChange: (draft: ProviderDraft) => void;
}) {
  const id = useId();
  const clearing = draft.apiKey === "";
  return (
    <fieldset className="settings-group">
      <legend>{title}</legend>
      <div className="settings-row">
        <label htmlFor={`${id}-key`}>API key</label>
        <div className="settings-control">
          <div className="key-row">
            <input
              id={`${id}-key`}
              className="input"
              type="password"
              autoComplete="off"
              placeholder={clearing ? "Will be cleared" : view.key_set ? "•••••••• (unchanged)" : "Paste a key"}
              value={draft.apiKey ?? ""}
              onChange={(event) => onChange({ ...draft, apiKey: event.target.value === "" ? null : event.target.value })}
            />
            <span className={`key-status${view.key_set ? " key-set" : ""}`}>{clearing ? "will be cleared" : keyStatus(view)}</span>
            {view.key_set && !view.key_from_env && !clearing ? (
              <button type="button" className="link-button" onClick={() => onChange({ ...draft, apiKey: "" })}>
                Clear
              </button>
            ) : null}
          </div>
          {view.key_from_env ? <p className="qhint">The environment's key overrides one saved here.</p> : null}
        </div>
      </div>
      <div className="settings-row">
        <label htmlFor={`${id}-url`}>Base URL</label>
        <input
          id={`${id}-url`}
          className="input"
          type="url"
          placeholder="The provider's own"
          value={draft.baseUrl}
          onChange={(event) => onChange({ ...draft, baseUrl: event.target.value })}
        />
      </div>
      <div className="settings-row">
        <label htmlFor={`${id}-model`}>Model</label>
        <input
          id={`${id}-model`}
          className="input"
          type="text"
          placeholder="Beckon's choice"
          value={draft.model}
          onChange={(event) => onChange({ ...draft, model: event.target.value })}
        />
      </div>
    </fieldset>
  );
}
