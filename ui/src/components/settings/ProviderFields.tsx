import { useId } from "react";
import type { ProviderView } from "../../bindings/ProviderView";
import { SecretInput } from "./SecretInput";

/** What the person typed for one provider; `apiKey` null means "keep the current key". */
export interface ProviderDraft {
  apiKey: string | null;
  baseUrl: string;
  model: string;
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
  return (
    <fieldset className="settings-group">
      <legend>{title}</legend>
      <div className="settings-row">
        <label htmlFor={`${id}-key`}>API key</label>
        <div className="settings-control">
          <SecretInput
            id={`${id}-key`}
            name="API key"
            set={view.key_set}
            fromEnv={view.key_from_env}
            value={draft.apiKey}
            placeholder="Paste a key"
            onChange={(apiKey) => onChange({ ...draft, apiKey })}
          />
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
