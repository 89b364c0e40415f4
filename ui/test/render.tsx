import { render, type RenderResult } from "@testing-library/react";
import { useEffect, type Dispatch, type ReactElement } from "react";
import type { Commands } from "../src/api/commands";
import { FixedNow } from "../src/hooks/now";
import { initialState } from "../src/state/initial";
import { StoreProvider, useBackendHandles } from "../src/state/store";
import { ToastProvider } from "../src/state/toasts";
import type { Action, AppState } from "../src/state/types";
import { NOW } from "./builders";

/** Renders `ui` at the fixed test time. */
export function renderAt(ui: ReactElement, now = NOW): RenderResult {
  return render(<FixedNow at={now}>{ui}</FixedNow>);
}

/** A command set whose every command fails unless overridden. */
export function fakeApi(overrides: Partial<Commands> = {}): Commands {
  const missing = (name: string) => () => Promise.reject(new Error(`unexpected call to ${name}`));
  return {
    bootstrap: missing("bootstrap"),
    listSessions: missing("listSessions"),
    getSession: missing("getSession"),
    getQuestion: missing("getQuestion"),
    startSession: missing("startSession"),
    sendMessage: missing("sendMessage"),
    answer: missing("answer"),
    decline: missing("decline"),
    cancel: missing("cancel"),
    metrics: missing("metrics"),
    getSettings: missing("getSettings"),
    saveSettings: missing("saveSettings"),
    callbackSecret: missing("callbackSecret"),
    rotateCallbackSecret: missing("rotateCallbackSecret"),
    telegramPairing: missing("telegramPairing"),
    newTelegramPairingCode: missing("newTelegramPairingCode"),
    confirmTelegramChat: missing("confirmTelegramChat"),
    refuseTelegramChat: missing("refuseTelegramChat"),
    agentsStatus: missing("agentsStatus"),
    connectAgent: missing("connectAgent"),
    tokens: missing("tokens"),
    answerBatch: missing("answerBatch"),
    rules: missing("rules"),
    createRule: missing("createRule"),
    revokeRule: missing("revokeRule"),
    ruleOffers: missing("ruleOffers"),
    dismissRuleOffer: missing("dismissRuleOffer"),
    exportAudit: missing("exportAudit"),
    teamInboxes: missing("teamInboxes"),
    addTeamInbox: missing("addTeamInbox"),
    signInTeamInbox: missing("signInTeamInbox"),
    removeTeamInbox: missing("removeTeamInbox"),
    pairedChannels: missing("pairedChannels"),
    pairChannel: missing("pairChannel"),
    unpairChannel: missing("unpairChannel"),
    pushOffer: missing("pushOffer"),
    addPushDevice: missing("addPushDevice"),
    removePushDevice: missing("removePushDevice"),
    createToken: missing("createToken"),
    revokeToken: missing("revokeToken"),
    startAtLogin: missing("startAtLogin"),
    setStartAtLogin: missing("setStartAtLogin"),
    beckonCommand: missing("beckonCommand"),
    sendTestNotification: missing("sendTestNotification"),
    dismissGuide: missing("dismissGuide"),
    ...overrides,
  };
}

/** Renders `ui` inside the store (seeded with `state`) at the fixed test time. */
export function renderWithStore(ui: ReactElement, { state = initialState, api = fakeApi(), now = NOW }: { state?: AppState; api?: Commands; now?: number } = {}): RenderResult {
  return render(
    <ToastProvider>
      <StoreProvider api={api} initial={state}>
        <FixedNow at={now}>{ui}</FixedNow>
      </StoreProvider>
    </ToastProvider>,
  );
}

/** Renders nothing; hands the store's dispatch to the test. */
export function DispatchProbe({ onReady }: { onReady: (dispatch: Dispatch<Action>) => void }) {
  const { dispatch } = useBackendHandles();
  useEffect(() => {
    onReady(dispatch);
  }, [dispatch, onReady]);
  return null;
}
