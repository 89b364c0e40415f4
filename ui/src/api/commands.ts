import type { NewToken } from "../bindings/NewToken";
import type { TokenView } from "../bindings/TokenView";
import type { AgentView } from "../bindings/AgentView";
import type { Answer } from "../bindings/Answer";
import type { AnswerReceipt } from "../bindings/AnswerReceipt";
import type { Bootstrap } from "../bindings/Bootstrap";
import type { Metrics } from "../bindings/Metrics";
import type { NotificationTest } from "../bindings/NotificationTest";
import type { QuestionRecord } from "../bindings/QuestionRecord";
import type { RequestId } from "../bindings/RequestId";
import type { SessionCursor } from "../bindings/SessionCursor";
import type { SessionId } from "../bindings/SessionId";
import type { SessionPage } from "../bindings/SessionPage";
import type { SessionView } from "../bindings/SessionView";
import type { SettingsInput } from "../bindings/SettingsInput";
import type { SettingsView } from "../bindings/SettingsView";
import type { TelegramPairing } from "../bindings/TelegramPairing";
import type { WindowSnapshot } from "../bindings/WindowSnapshot";
import type { ChannelPairingCode } from "../bindings/ChannelPairingCode";
import type { PairedChannel } from "../bindings/PairedChannel";
import type { TeamInboxView } from "../bindings/TeamInboxView";
import type { TeamState } from "../bindings/TeamState";
import { call, inDesktop, signedInPerson, type SignedInPerson } from "./transport";
import type { AuditFormat, BatchDecision, BatchReceipt, RuleOffer, RuleRecord, RuleSource, RuleSpec } from "./triage";

/**
 * What the window starts with: in the desktop app, everything; on a team server, the inbox,
 * sessions and figures addressed to the person signed in, and who that is.
 */
export type Start = { surface: "desktop"; bootstrap: Bootstrap } | { surface: "team"; snapshot: WindowSnapshot; person: SignedInPerson };

async function start(): Promise<Start> {
  if (inDesktop()) return { surface: "desktop", bootstrap: await call<Bootstrap>("bootstrap") };
  const person = await signedInPerson();
  return { surface: "team", snapshot: await call<WindowSnapshot>("bootstrap"), person };
}

/** The window's commands, one typed function each. Argument keys are camelCase, as Tauri expects. */
export const commands = {
  bootstrap: start,
  listSessions: (after: SessionCursor | null, limit?: number) =>
    call<SessionPage>("list_sessions", { after, limit }),
  getSession: (sessionId: SessionId) => call<SessionView>("get_session", { sessionId }),
  getQuestion: (requestId: RequestId) => call<QuestionRecord>("get_question", { requestId }),
  startSession: (agent: string, message: string) => call<SessionId>("start_session", { agent, message }),
  sendMessage: (sessionId: SessionId, text: string) => call<null>("send_message", { sessionId, text }),
  answer: (requestId: RequestId, answers: Answer[]) => call<AnswerReceipt>("answer", { requestId, answers }),
  decline: (requestId: RequestId, reason?: string) => call<AnswerReceipt>("decline", { requestId, reason }),
  cancel: (sessionId: SessionId, reason?: string) => call<null>("cancel", { sessionId, reason }),
  metrics: () => call<Metrics>("metrics"),
  getSettings: () => call<SettingsView>("get_settings"),
  saveSettings: (settings: SettingsInput) => call<SettingsView>("save_settings", { settings }),
  callbackSecret: () => call<string>("callback_secret"),
  rotateCallbackSecret: () => call<string>("rotate_callback_secret"),
  telegramPairing: () => call<TelegramPairing>("telegram_pairing"),
  newTelegramPairingCode: () => call<TelegramPairing>("new_telegram_pairing_code"),
  confirmTelegramChat: (chat: string) => call<TelegramPairing>("confirm_telegram_chat", { chat }),
  refuseTelegramChat: (chat: string) => call<TelegramPairing>("refuse_telegram_chat", { chat }),
  agentsStatus: () => call<AgentView[]>("agents_status"),
  connectAgent: (name: string, remove: boolean) => call<AgentView>("connect_agent", { name, remove }),
  tokens: () => call<TokenView[]>("tokens"),
  createToken: (name: string) => call<NewToken>("create_token", { name }),
  revokeToken: (name: string) => call<TokenView>("revoke_token", { name }),
  startAtLogin: () => call<boolean>("start_at_login"),
  setStartAtLogin: (on: boolean) => call<boolean>("set_start_at_login", { on }),
  beckonCommand: () => call<string | null>("beckon_command"),
  sendTestNotification: () => call<NotificationTest>("send_test_notification"),
  dismissGuide: () => call<SettingsView>("dismiss_guide"),
  answerBatch: (requestIds: RequestId[], decision: BatchDecision) => call<BatchReceipt>("answer_batch", { requestIds, decision }),
  rules: (includeRevoked: boolean) => call<RuleRecord[]>("rules", { includeRevoked }),
  createRule: (spec: RuleSpec, source: RuleSource) => call<RuleRecord>("create_rule", { spec, source }),
  revokeRule: (id: number) => call<RuleRecord>("revoke_rule", { id }),
  ruleOffers: () => call<RuleOffer[]>("rule_offers"),
  dismissRuleOffer: (key: string) => call<null>("dismiss_rule_offer", { key }),
  /** Writes the audit log to a file; the path written comes back. */
  exportAudit: (format: AuditFormat) => call<string>("export_audit", { format }),
  /** The team inboxes, where each stands, and what waits in them. */
  teamInboxes: () => call<TeamState>("team_inboxes"),
  /** Adds a team inbox: the person's browser opens on its sign-in. */
  addTeamInbox: (name: string, url: string) => call<TeamInboxView>("add_team_inbox", { name, url }),
  signInTeamInbox: (id: string) => call<TeamInboxView>("sign_in_team_inbox", { id }),
  removeTeamInbox: (id: string) => call<TeamInboxView[]>("remove_team_inbox", { id }),
  /** On a team server: the channels the person may pair their own account on, and theirs. */
  pairedChannels: () => call<PairedChannel[]>("paired_channels"),
  /** On a team server: a code for the person to send the channel's bot from their account. */
  pairChannel: (channel: string) => call<ChannelPairingCode>("pair_channel", { channel }),
  unpairChannel: (channel: string) => call<PairedChannel[]>("unpair_channel", { channel }),
};

export type Commands = typeof commands;
