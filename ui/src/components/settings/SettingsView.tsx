import { useId, useState } from "react";
import type { Problem } from "../../bindings/Problem";
import type { ProviderKind } from "../../bindings/ProviderKind";
import type { SettingsView as Settings } from "../../bindings/SettingsView";
import { useActions, useAppSelector } from "../../state/store";
import { Icon } from "../common/Icon";
import { Spinner } from "../common/Spinner";
import { CallbackSecret } from "./CallbackSecret";
import { ChannelsSection } from "./ChannelsSection";
import { AgentConnections } from "./AgentConnections";
import { AgentTokens } from "./AgentTokens";
import { AuditSection } from "./AuditSection";
import { RulesSection } from "./RulesSection";
import { ProviderFields } from "./ProviderFields";
import { StartAtLogin } from "./StartAtLogin";
import { TeamInboxes } from "./TeamInboxes";
import { draftFrom, toSettingsInput, type SettingsDraft } from "./settingsDraft";

const PROVIDERS: { value: ProviderKind | ""; label: string }[] = [
  { value: "", label: "Beckon's default" },
  { value: "anthropic", label: "Anthropic" },
  { value: "openai", label: "OpenAI-compatible" },
  { value: "scripted", label: "Offline demo (scripted)" },
];

function SettingsForm({ settings, onShowGuide }: { settings: Settings; onShowGuide: () => void }) {
  const agents = useAppSelector((state) => state.agents);
  const agentProblems = useAppSelector((state) => state.agentProblems);
  const dataDir = useAppSelector((state) => state.dataDir);
  const gateway = useAppSelector((state) => state.gateway);
  const { saveSettings } = useActions();
  const [draft, setDraft] = useState<SettingsDraft>(() => draftFrom(settings));
  const [status, setStatus] = useState<{ kind: "idle" | "saving" | "saved" } | { kind: "error"; message: string; problems: readonly Problem[] }>({
    kind: "idle",
  });
  const id = useId();
  const change = (next: Partial<SettingsDraft>) => {
    setDraft((current) => ({ ...current, ...next }));
    setStatus({ kind: "idle" });
  };

  const save = async () => {
    const built = toSettingsInput(draft);
    if ("problem" in built) {
      setStatus({ kind: "error", message: built.problem, problems: built.field ? [{ path: built.field, message: built.problem }] : [] });
      return;
    }
    setStatus({ kind: "saving" });
    const result = await saveSettings(built.input);
    if (result.ok) {
      setDraft(draftFrom(result.settings));
      setStatus({ kind: "saved" });
    } else {
      const { message, field, problems } = result.error;
      setStatus({ kind: "error", message, problems: problems?.length ? problems : field ? [{ path: field, message }] : [] });
    }
  };

  return (
    <form
      className="settings-form"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      {settings.problem ? (
        <div className="notice" role="alert">
          <Icon name="alert" size={15} />
          <p>{settings.problem}</p>
        </div>
      ) : null}
      <fieldset className="settings-group">
        <legend>Starting Beckon</legend>
        <StartAtLogin />
        <div className="settings-row">
          <span className="settings-row-label">Getting started</span>
          <div className="settings-control">
            <button type="button" className="button button-quiet guide-open" onClick={onShowGuide}>
              Show the getting-started guide
            </button>
          </div>
        </div>
      </fieldset>
      <ProviderFields title="Anthropic" view={settings.anthropic} draft={draft.anthropic} onChange={(anthropic) => change({ anthropic })} />
      <ProviderFields title="OpenAI-compatible" view={settings.openai} draft={draft.openai} onChange={(openai) => change({ openai })} />
      <fieldset className="settings-group">
        <legend>Agents</legend>
        <div className="settings-row">
          <label htmlFor={`${id}-agent`}>Default agent</label>
          <select id={`${id}-agent`} className="select" value={draft.defaultAgent} onChange={(event) => change({ defaultAgent: event.target.value })}>
            <option value="">Beckon's default</option>
            {agents.map((agent) => (
              <option key={agent.name} value={agent.name}>
                {agent.name}
              </option>
            ))}
          </select>
        </div>
        <div className="settings-row">
          <label htmlFor={`${id}-provider`}>Default provider</label>
          <select
            id={`${id}-provider`}
            className="select"
            value={draft.defaultProvider}
            onChange={(event) => change({ defaultProvider: event.target.value as ProviderKind | "" })}
          >
            {PROVIDERS.map((provider) => (
              <option key={provider.value} value={provider.value}>
                {provider.label}
              </option>
            ))}
          </select>
        </div>
        {agentProblems.map((problem) => (
          <p key={problem.file} className="field-error">
            <code>{problem.file}</code>: {problem.message}
          </p>
        ))}
      </fieldset>
      <fieldset className="settings-group">
        <legend>Notifications and data</legend>
        <div className="settings-row">
          <label htmlFor={`${id}-dnd`}>Do not disturb</label>
          <div className="toggle">
            <input
              id={`${id}-dnd`}
              type="checkbox"
              role="switch"
              checked={draft.doNotDisturb}
              onChange={(event) => change({ doNotDisturb: event.target.checked })}
            />
            <span className="toggle-track" aria-hidden="true">
              <span className="toggle-thumb" />
            </span>
            <span className="toggle-text" aria-hidden="true">
              {draft.doNotDisturb ? "On — the tray still counts" : "Off"}
            </span>
          </div>
        </div>
        <div className="settings-row">
          <label htmlFor={`${id}-reminder`}>Reminder after (minutes)</label>
          <div className="settings-control">
            <input
              id={`${id}-reminder`}
              className="input input-number"
              type="number"
              min={0}
              step={1}
              value={draft.reminderMinutes}
              aria-describedby={`${id}-reminder-hint`}
              onChange={(event) => change({ reminderMinutes: event.target.value })}
            />
            <p className="qhint" id={`${id}-reminder-hint`}>
              0 turns reminders off.
            </p>
          </div>
        </div>
        <div className="settings-row">
          <label htmlFor={`${id}-retention`}>Keep finished sessions (days)</label>
          <div className="settings-control">
            <input
              id={`${id}-retention`}
              className="input input-number"
              type="number"
              min={1}
              step={1}
              placeholder="Forever"
              value={draft.retentionDays}
              aria-describedby={`${id}-retention-hint`}
              onChange={(event) => change({ retentionDays: event.target.value })}
            />
            <p className="qhint" id={`${id}-retention-hint`}>
              Empty keeps everything.
            </p>
          </div>
        </div>
        <div className="settings-row">
          <label htmlFor={`${id}-scripts-approve`}>Scripts may approve tool calls</label>
          <div className="settings-control">
            <div className="toggle">
              <input
                id={`${id}-scripts-approve`}
                type="checkbox"
                role="switch"
                checked={draft.scriptsMayApprove || settings.scripts_may_approve_from_env}
                disabled={settings.scripts_may_approve_from_env}
                aria-describedby={`${id}-scripts-approve-hint`}
                onChange={(event) => change({ scriptsMayApprove: event.target.checked })}
              />
              <span className="toggle-track" aria-hidden="true">
                <span className="toggle-thumb" />
              </span>
              <span className="toggle-text" aria-hidden="true">
                {draft.scriptsMayApprove || settings.scripts_may_approve_from_env ? "On" : "Off — only you allow them"}
              </span>
            </div>
            <p className="qhint" id={`${id}-scripts-approve-hint`}>
              {settings.scripts_may_approve_from_env
                ? "BECKON_SCRIPTS_MAY_APPROVE is set, so HTTP, MCP and the beckon command may allow tool calls."
                : "When off, HTTP, MCP and the beckon command can deny a tool call but not allow it: the agent that asks can reach them too."}
            </p>
          </div>
        </div>
      </fieldset>
      <ChannelsSection
        slack={settings.slack}
        telegram={settings.telegram}
        draft={draft}
        problems={status.kind === "error" ? status.problems : []}
        onChange={change}
      />
      <TeamInboxes />
      <AgentConnections />
      <AgentTokens />
      <RulesSection />
      <AuditSection />
      <CallbackSecret />
      <p className="settings-paths muted">
        Settings file: <code>{settings.file}</code>
        <br />
        Data folder: <code>{dataDir}</code>
        <br />
        {gateway.url ? (
          <>
            Gateway for external agents: <code>{gateway.url}</code>
          </>
        ) : (
          <>The gateway for external agents is not running{gateway.problem ? `: ${gateway.problem}` : "."}</>
        )}
      </p>
      <div className="settings-actions">
        {status.kind === "error" ? (
          <p className="field-error" role="alert">
            {status.message}
          </p>
        ) : null}
        {status.kind === "saved" ? (
          <p className="saved-note" role="status">
            <Icon name="check" size={14} />
            Saved
          </p>
        ) : null}
        <button type="submit" className="button button-primary" disabled={status.kind === "saving"}>
          {status.kind === "saving" ? <Spinner /> : null}
          Save
        </button>
      </div>
    </form>
  );
}

/** The settings screen. */
export function SettingsView({ onShowGuide }: { onShowGuide: () => void }) {
  const settings = useAppSelector((state) => state.settings);
  return (
    <section className="view settings-view" aria-labelledby="settings-title">
      <header className="view-head">
        <div>
          <h1 id="settings-title">Settings</h1>
          <p className="view-sub">Keys are stored on this computer and never shown again.</p>
        </div>
      </header>
      <div className="view-body">{settings ? <SettingsForm settings={settings} onShowGuide={onShowGuide} /> : <Spinner label="Loading settings" />}</div>
    </section>
  );
}
