import type { ChannelInput } from "../../bindings/ChannelInput";
import type { ChannelView } from "../../bindings/ChannelView";
import type { ProviderInput } from "../../bindings/ProviderInput";
import type { ProviderKind } from "../../bindings/ProviderKind";
import type { ProviderView } from "../../bindings/ProviderView";
import type { SettingsInput } from "../../bindings/SettingsInput";
import type { SettingsView } from "../../bindings/SettingsView";
import type { ProviderDraft } from "./ProviderFields";

/** The longest a channel may wait before posting: a week, in minutes (as the backend checks). */
export const AFTER_MINUTES_MAX = 7 * 24 * 60;
/** How many agents a channel's filter may name. */
export const AGENTS_MAX = 32;

/** Which channel a draft is for; also the start of its fields' paths in errors (`slack.channel`). */
export type ChannelKey = "slack" | "telegram";

/** What the person typed for one channel; a token null means "keep the stored one", "" clears it. */
export interface ChannelDraft {
  enabled: boolean;
  botToken: string | null;
  /** Slack's app-level token. */
  appToken: string | null;
  /** Slack's channel id, for questions that allow nothing. */
  channel: string;
  /** Slack: the person's own member id; approvals go only to their direct messages. */
  person: string;
  apiBaseUrl: string;
  afterMinutes: string;
  /** Agent names, separated by commas. */
  agents: string;
}

/** The settings form as typed. */
export interface SettingsDraft {
  anthropic: ProviderDraft;
  openai: ProviderDraft;
  defaultAgent: string;
  defaultProvider: ProviderKind | "";
  doNotDisturb: boolean;
  reminderMinutes: string;
  retentionDays: string;
  scriptsMayApprove: boolean;
  slack: ChannelDraft;
  telegram: ChannelDraft;
}

/** Something wrong with the form, at the field it is about (`slack.after_minutes`) when there is one. */
export interface DraftProblem {
  problem: string;
  field?: string;
}

function providerDraft(view: ProviderView): ProviderDraft {
  return { apiKey: null, baseUrl: view.base_url ?? "", model: view.model ?? "" };
}

function channelDraft(view: ChannelView): ChannelDraft {
  return {
    enabled: view.enabled,
    botToken: null,
    appToken: null,
    channel: view.channel ?? "",
    person: view.person ?? "",
    apiBaseUrl: view.api_base_url ?? "",
    afterMinutes: String(view.after_minutes),
    agents: view.agents.join(", "),
  };
}

/** A form filled from the saved settings (keys are never shown; they start as "keep"). */
export function draftFrom(view: SettingsView): SettingsDraft {
  return {
    anthropic: providerDraft(view.anthropic),
    openai: providerDraft(view.openai),
    defaultAgent: view.default_agent ?? "",
    defaultProvider: view.default_provider ?? "",
    doNotDisturb: view.do_not_disturb,
    reminderMinutes: String(view.reminder_minutes),
    retentionDays: view.retention_days === null ? "" : String(view.retention_days),
    scriptsMayApprove: view.scripts_may_approve,
    slack: channelDraft(view.slack),
    telegram: channelDraft(view.telegram),
  };
}

function providerInput(draft: ProviderDraft): ProviderInput {
  const input: ProviderInput = { base_url: draft.baseUrl.trim() || null, model: draft.model.trim() || null };
  // Absent keeps the saved key; "" clears it.
  if (draft.apiKey !== null) input.api_key = draft.apiKey.trim();
  return input;
}

const CHANNEL_NAMES: Record<ChannelKey, string> = { slack: "Slack", telegram: "Telegram" };

/** The agent names in a comma-separated list, trimmed, without blanks or repeats. */
export function agentList(text: string): string[] {
  return [...new Set(text.split(",").map((name) => name.trim()).filter((name) => name !== ""))];
}

function channelInput(key: ChannelKey, draft: ChannelDraft): { input: ChannelInput } | DraftProblem {
  const name = CHANNEL_NAMES[key];
  const after = Number(draft.afterMinutes);
  if (draft.afterMinutes.trim() === "" || !Number.isInteger(after) || after < 0 || after > AFTER_MINUTES_MAX) {
    return {
      problem: `${name}'s "post only after" must be a whole number of minutes from 0 to ${AFTER_MINUTES_MAX} (a week).`,
      field: `${key}.after_minutes`,
    };
  }
  const agents = agentList(draft.agents);
  if (agents.length > AGENTS_MAX) {
    return { problem: `${name}'s agent list names ${agents.length} agents; at most ${AGENTS_MAX} are allowed.`, field: `${key}.agents` };
  }
  const input: ChannelInput = {
    enabled: draft.enabled,
    channel: key === "slack" ? draft.channel.trim() || null : null,
    person: key === "slack" ? draft.person.trim() || null : null,
    api_base_url: draft.apiBaseUrl.trim() || null,
    after_minutes: after,
    agents,
  };
  // Absent keeps the stored token; "" clears it.
  if (draft.botToken !== null) input.bot_token = draft.botToken.trim();
  if (key === "slack" && draft.appToken !== null) input.app_token = draft.appToken.trim();
  return { input };
}

/** What to send to `save_settings`, or what is wrong with the form. */
export function toSettingsInput(draft: SettingsDraft): { input: SettingsInput } | DraftProblem {
  const reminder = Number(draft.reminderMinutes);
  if (draft.reminderMinutes.trim() === "" || !Number.isInteger(reminder) || reminder < 0) {
    return { problem: "Reminder minutes must be a whole number, 0 or more." };
  }
  const retention = draft.retentionDays.trim() === "" ? null : Number(draft.retentionDays);
  if (retention !== null && (!Number.isInteger(retention) || retention < 1)) {
    return { problem: "Retention must be a whole number of days (1 or more), or empty to keep everything." };
  }
  const slack = channelInput("slack", draft.slack);
  if ("problem" in slack) return slack;
  const telegram = channelInput("telegram", draft.telegram);
  if ("problem" in telegram) return telegram;
  return {
    input: {
      anthropic: providerInput(draft.anthropic),
      openai: providerInput(draft.openai),
      default_agent: draft.defaultAgent || null,
      default_provider: draft.defaultProvider || null,
      do_not_disturb: draft.doNotDisturb,
      reminder_minutes: reminder,
      retention_days: retention,
      scripts_may_approve: draft.scriptsMayApprove,
      slack: slack.input,
      telegram: telegram.input,
    },
  };
}
