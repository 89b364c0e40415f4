import { useId, useState, type ReactNode } from "react";
import type { ChannelView } from "../../bindings/ChannelView";
import type { Problem } from "../../bindings/Problem";
import { useAppSelector } from "../../state/store";
import { SecretInput } from "./SecretInput";
import { TelegramPairingBox } from "./TelegramPairing";
import { AFTER_MINUTES_MAX, type ChannelDraft, type ChannelKey } from "./settingsDraft";

/** One field's row: its label, its control, a hint, and the problem the last save found with it. */
function Row({ id, label, hint, problem, children }: { id: string; label: string; hint?: ReactNode; problem: string | null; children: ReactNode }) {
  return (
    <div className="settings-row">
      <label htmlFor={id}>{label}</label>
      <div className="settings-control">
        {children}
        {problem ? (
          <p className="field-error" id={`${id}-error`}>
            {problem}
          </p>
        ) : null}
        {hint ? (
          <p className="qhint" id={`${id}-hint`}>
            {hint}
          </p>
        ) : null}
      </div>
    </div>
  );
}

/** The ids that describe a field: its problem first, then its hint. */
function describedBy(id: string, problem: string | null, hint: boolean): string | undefined {
  return [problem ? `${id}-error` : null, hint ? `${id}-hint` : null].filter(Boolean).join(" ") || undefined;
}

const NAMES: Record<ChannelKey, string> = { slack: "Slack", telegram: "Telegram" };

/** A Slack id typed by the person (their member id, a channel's id), with its hint and problem. */
function SlackIdRow({
  id,
  label,
  hint,
  placeholder,
  value,
  problem,
  onChange,
}: {
  id: string;
  label: string;
  hint: string;
  placeholder: string;
  value: string;
  problem: string | null;
  onChange: (value: string) => void;
}) {
  return (
    <Row id={id} label={label} problem={problem} hint={hint}>
      <input
        id={id}
        className="input input-mono"
        type="text"
        spellCheck={false}
        placeholder={placeholder}
        value={value}
        aria-invalid={problem !== null || undefined}
        aria-describedby={describedBy(id, problem, true)}
        onChange={(event) => onChange(event.target.value)}
      />
    </Row>
  );
}

/** One channel's fields: on or off, its tokens (never shown), where it posts, and which questions. */
function ChannelFields({
  channel,
  view,
  draft,
  problems,
  onChange,
}: {
  channel: ChannelKey;
  view: ChannelView;
  draft: ChannelDraft;
  problems: readonly Problem[];
  onChange: (draft: ChannelDraft) => void;
}) {
  const agents = useAppSelector((state) => state.agents);
  const id = useId();
  const name = NAMES[channel];
  const problem = (field: string) => problems.find((found) => found.path === `${channel}.${field}`)?.message ?? null;
  const urlProblem = problem("api_base_url");
  const [advanced, setAdvanced] = useState(draft.apiBaseUrl !== "");
  const change = (next: Partial<ChannelDraft>) => onChange({ ...draft, ...next });
  const field = (key: string) => `${id}-${key}`;
  const known = agents.map((agent) => agent.name).join(", ");

  return (
    <fieldset className="channel-group">
      <legend>{name}</legend>
      <Row id={field("enabled")} label="Enabled" problem={null}>
        <div className="toggle">
          <input id={field("enabled")} type="checkbox" role="switch" checked={draft.enabled} onChange={(event) => change({ enabled: event.target.checked })} />
          <span className="toggle-track" aria-hidden="true">
            <span className="toggle-thumb" />
          </span>
          <span className="toggle-text" aria-hidden="true">
            {draft.enabled ? `On — questions go to ${name}` : "Off"}
          </span>
        </div>
      </Row>
      {channel === "slack" ? (
        <Row
          id={field("app_token")}
          label="App-level token"
          problem={problem("app_token")}
          hint={
            <>
              The <code>xapp-…</code> token with <code>connections:write</code>: Beckon connects out through Socket Mode, no port is opened.
            </>
          }
        >
          <SecretInput
            id={field("app_token")}
            name="app-level token"
            set={view.app_token_set}
            value={draft.appToken}
            placeholder="xapp-…"
            invalid={problem("app_token") !== null}
            describedBy={describedBy(field("app_token"), problem("app_token"), true)}
            onChange={(appToken) => change({ appToken })}
          />
        </Row>
      ) : null}
      <Row id={field("bot_token")} label="Bot token" problem={problem("bot_token")}>
        <SecretInput
          id={field("bot_token")}
          name="bot token"
          set={view.bot_token_set}
          value={draft.botToken}
          placeholder={channel === "slack" ? "xoxb-…" : "From BotFather"}
          invalid={problem("bot_token") !== null}
          describedBy={describedBy(field("bot_token"), problem("bot_token"), false)}
          onChange={(botToken) => change({ botToken })}
        />
      </Row>
      {channel === "slack" ? (
        <>
          <SlackIdRow
            id={field("person")}
            label="Your member id"
            hint="Your own Slack member id (U…: your profile › ⋮ › Copy member ID). Approvals go only to your direct messages with the bot, and only you can allow them."
            placeholder="U0123456789"
            value={draft.person}
            problem={problem("person")}
            onChange={(person) => change({ person })}
          />
          <SlackIdRow
            id={field("channel")}
            label="Channel id"
            hint="Optional: a channel (C…) for questions that allow nothing; anyone there may answer those. Invite the bot first. Approvals never go to a channel."
            placeholder="C0123456789"
            value={draft.channel}
            problem={problem("channel")}
            onChange={(channel) => change({ channel })}
          />
        </>
      ) : (
        <div className="settings-row">
          <span className="settings-row-label">Chat</span>
          <div className="settings-control">
            <TelegramPairingBox tokenSet={view.bot_token_set} enabled={view.enabled} />
          </div>
        </div>
      )}
      <Row id={field("after")} label="Post only after (minutes unanswered)" problem={problem("after_minutes")} hint="0 posts a question as soon as it is asked.">
        <input
          id={field("after")}
          className="input input-number"
          type="number"
          min={0}
          max={AFTER_MINUTES_MAX}
          step={1}
          value={draft.afterMinutes}
          aria-invalid={problem("after_minutes") !== null || undefined}
          aria-describedby={describedBy(field("after"), problem("after_minutes"), true)}
          onChange={(event) => change({ afterMinutes: event.target.value })}
        />
      </Row>
      <Row
        id={field("agents")}
        label="Only these agents"
        problem={problem("agents")}
        hint={`Names separated by commas; empty sends every agent's questions.${known ? ` Yours: ${known}.` : ""}`}
      >
        <input
          id={field("agents")}
          className="input"
          type="text"
          spellCheck={false}
          placeholder="Every agent"
          value={draft.agents}
          aria-invalid={problem("agents") !== null || undefined}
          aria-describedby={describedBy(field("agents"), problem("agents"), true)}
          onChange={(event) => change({ agents: event.target.value })}
        />
      </Row>
      <details className="channel-advanced" open={advanced || urlProblem !== null} onToggle={(event) => setAdvanced(event.currentTarget.open)}>
        <summary>Advanced</summary>
        <Row
          id={field("url")}
          label="API address"
          problem={urlProblem}
          hint="For a proxy or a test server. A new address drops the saved tokens unless you give them again."
        >
          <input
            id={field("url")}
            className="input"
            type="url"
            spellCheck={false}
            placeholder={`${name}'s own`}
            value={draft.apiBaseUrl}
            aria-invalid={urlProblem !== null || undefined}
            aria-describedby={describedBy(field("url"), urlProblem, true)}
            onChange={(event) => change({ apiBaseUrl: event.target.value })}
          />
        </Row>
      </details>
    </fieldset>
  );
}

/**
 * Settings › Channels: Slack (Socket Mode) and Telegram (long polling), where pending questions
 * are posted and answered. Tokens are never shown; do-not-disturb pauses posting here too.
 */
export function ChannelsSection({
  slack,
  telegram,
  draft,
  problems,
  onChange,
}: {
  slack: ChannelView;
  telegram: ChannelView;
  draft: { slack: ChannelDraft; telegram: ChannelDraft };
  problems: readonly Problem[];
  onChange: (change: { slack: ChannelDraft } | { telegram: ChannelDraft }) => void;
}) {
  return (
    <fieldset className="settings-group">
      <legend>Channels</legend>
      <p className="qhint channels-note">Do not disturb pauses channel posts too; messages already posted still show how their questions ended.</p>
      <ChannelFields channel="slack" view={slack} draft={draft.slack} problems={problems} onChange={(next) => onChange({ slack: next })} />
      <ChannelFields channel="telegram" view={telegram} draft={draft.telegram} problems={problems} onChange={(next) => onChange({ telegram: next })} />
    </fieldset>
  );
}
