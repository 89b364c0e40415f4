import type { ProviderInput } from "../../bindings/ProviderInput";
import type { ProviderKind } from "../../bindings/ProviderKind";
import type { ProviderView } from "../../bindings/ProviderView";
import type { SettingsInput } from "../../bindings/SettingsInput";
import type { SettingsView } from "../../bindings/SettingsView";
import type { ProviderDraft } from "./ProviderFields";

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
}

function providerDraft(view: ProviderView): ProviderDraft {
  return { apiKey: null, baseUrl: view.base_url ?? "", model: view.model ?? "" };
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
  };
}

function providerInput(draft: ProviderDraft): ProviderInput {
  const input: ProviderInput = { base_url: draft.baseUrl.trim() || null, model: draft.model.trim() || null };
  // Absent keeps the saved key; "" clears it.
  if (draft.apiKey !== null) input.api_key = draft.apiKey.trim();
  return input;
}

/** What to send to `save_settings`, or what is wrong with the form. */
export function toSettingsInput(draft: SettingsDraft): { input: SettingsInput } | { problem: string } {
  const reminder = Number(draft.reminderMinutes);
  if (draft.reminderMinutes.trim() === "" || !Number.isInteger(reminder) || reminder < 0) {
    return { problem: "Reminder minutes must be a whole number, 0 or more." };
  }
  const retention = draft.retentionDays.trim() === "" ? null : Number(draft.retentionDays);
  if (retention !== null && (!Number.isInteger(retention) || retention < 1)) {
    return { problem: "Retention must be a whole number of days (1 or more), or empty to keep everything." };
  }
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
    },
  };
}
