import { useCallback, useId } from "react";
import type { AgentView } from "../../bindings/AgentView";
import { useExternalSetting } from "../../hooks/useExternalSetting";
import { useBackendHandles } from "../../state/store";
import { Spinner } from "../common/Spinner";

const STATE_TEXT: Record<AgentView["state"], string> = {
  connected: "Connected",
  out_of_date: "Out of date: its settings run another beckon, or miss part of the setup",
  not_connected: "Not connected",
  not_installed: "Not installed",
  unavailable: "Cannot connect from here",
};

/** What reaches Beckon from a connected agent, in a few words. */
function reach(agent: AgentView): string {
  return agent.answers_approvals
    ? `${agent.title}'s permission prompts and questions come here while Beckon runs.`
    : `${agent.title}'s permission prompts come here as notices; its questions through Beckon come here as questions.`;
}

/** The change the person asks for: connect (or update) one agent, or disconnect it. */
interface AgentChange {
  name: string;
  remove: boolean;
}

function AgentRow({ agent, busy, onChange }: { agent: AgentView; busy: boolean; onChange: (change: AgentChange) => void }) {
  const id = useId();
  const connected = agent.state === "connected" || agent.state === "out_of_date";
  return (
    <li className="agent-row" data-agent={agent.name} aria-labelledby={`${id}-title`}>
      <div className="agent-head">
        <strong id={`${id}-title`}>{agent.title}</strong>
        <span className="agent-state" data-state={agent.state} role="status">
          {STATE_TEXT[agent.state]}
        </span>
      </div>
      {agent.state === "connected" ? <p className="qhint">{reach(agent)}</p> : null}
      {agent.limits ? <p className="qhint agent-limits">{agent.limits}</p> : null}
      {agent.problem ? <p className="form-error">{agent.problem}</p> : null}
      {agent.state === "connected" && agent.next_step ? <p className="qhint">{agent.next_step}</p> : null}
      {agent.config_file && agent.state !== "not_installed" ? (
        <p className="qhint">
          Settings: <code>{agent.config_file}</code>
          {agent.program ? (
            <>
              {" "}
              · runs <code>{agent.program}</code>
            </>
          ) : null}
        </p>
      ) : null}
      <div className="agent-actions">
        {agent.state === "not_connected" || agent.state === "out_of_date" || agent.state === "not_installed" ? (
          <button
            type="button"
            className={agent.state === "not_installed" ? "button button-quiet" : "button button-primary"}
            onClick={() => onChange({ name: agent.name, remove: false })}
            disabled={busy}
            aria-label={`${agent.state === "out_of_date" ? "Update" : "Connect"} ${agent.title}`}
          >
            {busy ? <Spinner /> : null}
            {agent.state === "out_of_date" ? "Update" : "Connect"}
          </button>
        ) : null}
        {connected ? (
          <button type="button" className="button button-quiet" onClick={() => onChange({ name: agent.name, remove: true })} disabled={busy} aria-label={`Disconnect ${agent.title}`}>
            Disconnect
          </button>
        ) : null}
      </div>
    </li>
  );
}

/**
 * Settings › Agents: every agent Beckon connects to (Claude Code, Codex CLI, Copilot CLI,
 * OpenCode, Gemini CLI), where each stands, and Connect / Disconnect — the same configuration
 * `beckon setup <agent>` writes. With `installedOnly` (the getting-started guide) it lists the
 * agents found on this computer, and says so when there are none.
 */
export function AgentConnections({ legend = "Agents", installedOnly = false }: { legend?: string; installedOnly?: boolean }) {
  const { api } = useBackendHandles();
  const write = useCallback(
    async ({ name, remove }: AgentChange) => {
      const changed = await api.connectAgent(name, remove);
      const all = await api.agentsStatus();
      return all.map((agent) => (agent.name === changed.name ? changed : agent));
    },
    [api],
  );
  const { value: agents, busy, error, change } = useExternalSetting(api.agentsStatus, write);
  const id = useId();
  const shown = agents?.filter((agent) => !installedOnly || agent.installed || agent.state === "connected" || agent.state === "out_of_date");

  return (
    <fieldset className="settings-group agents" aria-labelledby={`${id}-title`} aria-busy={shown === undefined}>
      <legend id={`${id}-title`}>{legend}</legend>
      {shown === undefined ? <p role="status">Looking for agents on this computer…</p> : null}
      {shown !== undefined && shown.length === 0 ? (
        <p className="qhint agents-none" role="status">
          No agent was found on this computer (Claude Code, Codex CLI, Copilot CLI, OpenCode or Gemini CLI on PATH). Once you install one, connect it under Settings ›
          Agents, or with <code>beckon setup &lt;agent&gt;</code>.
        </p>
      ) : null}
      {error ? <p className="form-error">{error}</p> : null}
      {shown && shown.length > 0 ? (
        <ul className="agent-list">
          {shown.map((agent) => (
            <AgentRow key={agent.name} agent={agent} busy={busy} onChange={(next) => void change(next)} />
          ))}
        </ul>
      ) : null}
    </fieldset>
  );
}
