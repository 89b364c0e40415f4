import type { Answer } from "../bindings/Answer";
import type { Bootstrap } from "../bindings/Bootstrap";
import type { PushSubscription } from "../bindings/PushSubscription";
import type { RequestId } from "../bindings/RequestId";
import type { SessionCursor } from "../bindings/SessionCursor";
import type { SessionId } from "../bindings/SessionId";
import type { SettingsInput } from "../bindings/SettingsInput";
import type { WindowSnapshot } from "../bindings/WindowSnapshot";
import { call, inDesktop, signedInPerson, type SignedInPerson } from "./transport";
import type { AuditFormat, BatchDecision, RuleSource, RuleSpec } from "./triage";

/**
 * What the window starts with: in the desktop app, everything; on a team server, the inbox,
 * sessions and figures addressed to the person signed in, and who that is.
 */
export type Start = { surface: "desktop"; bootstrap: Bootstrap } | { surface: "team"; snapshot: WindowSnapshot; person: SignedInPerson };

async function start(): Promise<Start> {
  if (inDesktop()) return { surface: "desktop", bootstrap: await call("start") };
  const person = await signedInPerson();
  return { surface: "team", snapshot: await call("bootstrap"), person };
}

let early: Promise<Start> | null = null;

/**
 * Asks for what the window starts with as the page starts, before the window's own code has
 * loaded, so the snapshot is on its way while that code is parsed. The first `bootstrap` takes
 * this call's reply; any later one (a retry) asks again.
 */
export function startEarly(): void {
  early = start();
  // Its failure is the first bootstrap's to report.
  early.catch(() => undefined);
}

function bootstrap(): Promise<Start> {
  const started = early ?? start();
  early = null;
  return started;
}

/**
 * The window's commands, one function each. Names, arguments and replies are the generated
 * bindings' (`WindowCommand`, `DesktopCommand`): a command renamed or changed on the Rust side
 * fails the type-check here.
 */
export const commands = {
  bootstrap,
  listSessions: (after: SessionCursor | null, limit?: number) => call("list_sessions", { after: after ?? undefined, limit }),
  getSession: (sessionId: SessionId) => call("get_session", { sessionId }),
  getQuestion: (requestId: RequestId) => call("get_question", { requestId }),
  startSession: (agent: string, message: string) => call("start_session", { agent, message }),
  sendMessage: (sessionId: SessionId, text: string) => call("send_message", { sessionId, text }),
  answer: (requestId: RequestId, answers: Answer[]) => call("answer", { requestId, answers }),
  decline: (requestId: RequestId, reason?: string) => call("decline", { requestId, reason }),
  cancel: (sessionId: SessionId, reason?: string) => call("cancel", { sessionId, reason }),
  metrics: () => call("metrics"),
  getSettings: () => call("get_settings"),
  saveSettings: (settings: SettingsInput) => call("save_settings", { settings }),
  callbackSecret: () => call("callback_secret"),
  rotateCallbackSecret: () => call("rotate_callback_secret"),
  telegramPairing: () => call("telegram_pairing"),
  newTelegramPairingCode: () => call("new_telegram_pairing_code"),
  confirmTelegramChat: (chat: string) => call("confirm_telegram_chat", { chat }),
  refuseTelegramChat: (chat: string) => call("refuse_telegram_chat", { chat }),
  agentsStatus: () => call("agents_status"),
  connectAgent: (name: string, remove: boolean) => call("connect_agent", { name, remove }),
  tokens: () => call("tokens"),
  createToken: (name: string) => call("create_token", { name }),
  revokeToken: (name: string) => call("revoke_token", { name }),
  startAtLogin: () => call("start_at_login"),
  setStartAtLogin: (on: boolean) => call("set_start_at_login", { on }),
  beckonCommand: () => call("beckon_command"),
  sendTestNotification: () => call("send_test_notification"),
  dismissGuide: () => call("dismiss_guide"),
  answerBatch: (requestIds: RequestId[], decision: BatchDecision) => call("answer_batch", { requestIds, decision }),
  rules: (includeRevoked: boolean) => call("rules", { includeRevoked }),
  createRule: (spec: RuleSpec, source: RuleSource) => call("create_rule", { spec, source }),
  revokeRule: (id: number) => call("revoke_rule", { id }),
  ruleOffers: () => call("rule_offers"),
  dismissRuleOffer: (key: string) => call("dismiss_rule_offer", { key }),
  /** Writes the audit log to a file; the path written comes back. */
  exportAudit: (format: AuditFormat) => call("export_audit", { format }),
  /** The team inboxes, where each stands, and what waits in them. */
  teamInboxes: () => call("team_inboxes"),
  /** Adds a team inbox: the person's browser opens on its sign-in. */
  addTeamInbox: (name: string, url: string) => call("add_team_inbox", { name, url }),
  signInTeamInbox: (id: string) => call("sign_in_team_inbox", { id }),
  removeTeamInbox: (id: string) => call("remove_team_inbox", { id }),
  /** On a team server: the channels the person may pair their own account on, and theirs. */
  pairedChannels: () => call("paired_channels"),
  /** On a team server: a code for the person to send the channel's bot from their account. */
  pairChannel: (channel: string) => call("pair_channel", { channel }),
  unpairChannel: (channel: string) => call("unpair_channel", { channel }),
  /** On a team server: the key this browser subscribes to the server's pushes with. */
  pushOffer: () => call("push_offer"),
  /** On a team server: pushes the person's questions to this browser while they stay signed in. */
  addPushDevice: (subscription: PushSubscription) => call("add_push_device", subscription),
  removePushDevice: (endpoint: string) => call("remove_push_device", { endpoint }),
};

export type Commands = typeof commands;
