import { createContext, useContext, useMemo, useRef, useState, useSyncExternalStore, type Dispatch, type ReactNode } from "react";
import type { Answer } from "../bindings/Answer";
import type { RequestId } from "../bindings/RequestId";
import type { SessionCursor } from "../bindings/SessionCursor";
import type { SessionId } from "../bindings/SessionId";
import type { SettingsInput } from "../bindings/SettingsInput";
import type { SettingsView } from "../bindings/SettingsView";
import type { ErrorBody } from "../bindings/ErrorBody";
import { commands, type Commands } from "../api/commands";
import { errorBodyOf } from "../api/errors";
import type { BatchDecision, BatchReceipt } from "../api/triage";
import { initialState } from "./initial";
import { reducer } from "./reducer";
import { useToasts } from "./toasts";
import type { Action, AppState, SubmitResult } from "./types";

/** What views can ask of the backend; failures come back as values or toasts, never as throws. */
export interface Actions {
  answer: (requestId: RequestId, answers: Answer[]) => Promise<SubmitResult>;
  decline: (requestId: RequestId) => Promise<SubmitResult>;
  cancel: (sessionId: SessionId) => Promise<void>;
  startSession: (agent: string, message: string) => Promise<SessionId | null>;
  sendMessage: (sessionId: SessionId, text: string) => Promise<boolean>;
  loadSession: (sessionId: SessionId) => Promise<ErrorBody | null>;
  /** Fetches a question whole (the inbox's list starts with its line only); why not, if it failed. */
  loadQuestion: (requestId: RequestId) => Promise<ErrorBody | null>;
  loadMoreSessions: (after: SessionCursor) => Promise<void>;
  saveSettings: (settings: SettingsInput) => Promise<{ ok: true; settings: SettingsView } | { ok: false; error: ErrorBody }>;
  refreshMetrics: () => Promise<void>;
  /** The callback signing secret, read only when the person asks to see it. */
  callbackSecret: () => Promise<{ ok: true; secret: string } | { ok: false; error: ErrorBody }>;
  /** Replaces the callback signing secret; the new one comes back. */
  rotateCallbackSecret: () => Promise<{ ok: true; secret: string } | { ok: false; error: ErrorBody }>;
  /** Resolves several questions with one decision; what each came to, or why none was tried. */
  answerBatch: (requestIds: RequestId[], decision: BatchDecision) => Promise<{ ok: true; receipt: BatchReceipt } | { ok: false; error: ErrorBody }>;
  /** Puts the getting-started guide away for good; whether that was saved. */
  dismissGuide: () => Promise<boolean>;
}

/** The window's state outside React: views subscribe to the part they show. */
export interface AppStore {
  getState: () => AppState;
  subscribe: (listener: () => void) => () => void;
  dispatch: Dispatch<Action>;
}

/** A store holding `initial`, changed only through the reducer. */
export function createAppStore(initial: AppState): AppStore {
  let state = initial;
  const listeners = new Set<() => void>();
  return {
    getState: () => state,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispatch: (action) => {
      const next = reducer(state, action);
      if (next === state) return;
      state = next;
      for (const listener of [...listeners]) listener();
    },
  };
}

interface Store {
  store: AppStore;
  actions: Actions;
  api: Commands;
}

const StoreContext = createContext<Store | null>(null);

function makeActions(api: Commands, dispatch: Dispatch<Action>, toast: (message: string) => void): Actions {
  const resolve = async (run: () => ReturnType<Commands["answer"]>): Promise<SubmitResult> => {
    try {
      const receipt = await run();
      dispatch({ type: "resolved", question: receipt.question });
      return { ok: true };
    } catch (error) {
      const body = errorBodyOf(error);
      if (body.kind === "already_resolved" && body.winner) dispatch({ type: "resolved", question: body.winner });
      return { ok: false, error: body };
    }
  };
  const attempt = async <T,>(run: () => Promise<T>, what: string): Promise<T | null> => {
    try {
      return await run();
    } catch (error) {
      toast(`${what}: ${errorBodyOf(error).message}`);
      return null;
    }
  };
  const secret = async (run: () => Promise<string>) => {
    try {
      return { ok: true as const, secret: await run() };
    } catch (error) {
      return { ok: false as const, error: errorBodyOf(error) };
    }
  };
  return {
    answer: (requestId, answers) => resolve(() => api.answer(requestId, answers)),
    decline: (requestId) => resolve(() => api.decline(requestId)),
    answerBatch: async (requestIds, decision) => {
      try {
        const receipt = await api.answerBatch(requestIds, decision);
        for (const question of receipt.resolved) dispatch({ type: "resolved", question });
        return { ok: true, receipt };
      } catch (error) {
        return { ok: false, error: errorBodyOf(error) };
      }
    },
    cancel: async (sessionId) => {
      await attempt(() => api.cancel(sessionId), "Could not cancel the session");
    },
    startSession: (agent, message) => attempt(() => api.startSession(agent, message), "Could not start the chat"),
    sendMessage: async (sessionId, text) => (await attempt(() => api.sendMessage(sessionId, text).then(() => true), "Could not send the message")) ?? false,
    loadSession: async (sessionId) => {
      try {
        dispatch({ type: "session_loaded", view: await api.getSession(sessionId) });
        return null;
      } catch (error) {
        const body = errorBodyOf(error);
        // A missing session is said in its view; anything else may leave a stale view up.
        if (body.kind !== "not_found") toast(`Could not load the session: ${body.message}`);
        return body;
      }
    },
    loadQuestion: async (requestId) => {
      try {
        dispatch({ type: "question_loaded", question: await api.getQuestion(requestId) });
        return null;
      } catch (error) {
        return errorBodyOf(error);
      }
    },
    loadMoreSessions: async (after) => {
      const page = await attempt(() => api.listSessions(after), "Could not load more sessions");
      if (page) dispatch({ type: "sessions_page", page });
    },
    saveSettings: async (settings) => {
      try {
        const saved = await api.saveSettings(settings);
        dispatch({ type: "settings", settings: saved });
        return { ok: true, settings: saved };
      } catch (error) {
        return { ok: false, error: errorBodyOf(error) };
      }
    },
    dismissGuide: async () => {
      const settings = await attempt(() => api.dismissGuide(), "Could not put the guide away");
      if (settings) dispatch({ type: "settings", settings });
      return settings !== null;
    },
    callbackSecret: () => secret(() => api.callbackSecret()),
    rotateCallbackSecret: () => secret(() => api.rotateCallbackSecret()),
    refreshMetrics: async () => {
      try {
        dispatch({ type: "metrics", metrics: await api.metrics() });
      } catch {
        // Figures are a convenience: the panel keeps the last ones.
      }
    },
  };
}

/** Holds the window's state and the actions views call. `api` is replaceable for tests. */
export function StoreProvider({ children, api = commands, initial = initialState }: { children: ReactNode; api?: Commands; initial?: AppState }) {
  // One store for the provider's life: state changes reach subscribers, not the whole tree.
  const [store] = useState(() => createAppStore(initial));
  const { show } = useToasts();
  const actions = useMemo(() => makeActions(api, store.dispatch, show), [api, store, show]);
  const value = useMemo(() => ({ store, actions, api }), [store, actions, api]);
  return <StoreContext.Provider value={value}>{children}</StoreContext.Provider>;
}

function useStore(): Store {
  const store = useContext(StoreContext);
  if (!store) throw new Error("useStore needs a StoreProvider");
  return store;
}

/** Two lists with the same items in the same order (the items compared by identity). */
export function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}

/**
 * The part of the window's state `select` picks. The component re-renders only when that part
 * changes: by identity, or by `equal` for a selector that builds a new value each time (a list
 * compared with `sameItems`).
 */
export function useAppSelector<T>(select: (state: AppState) => T, equal: (a: T, b: T) => boolean = Object.is): T {
  const { store } = useStore();
  const last = useRef<{ state: AppState; select: (state: AppState) => T; value: T } | null>(null);
  const snapshot = () => {
    const state = store.getState();
    const previous = last.current;
    if (previous && previous.state === state && previous.select === select) return previous.value;
    const fresh = select(state);
    const value = previous && equal(previous.value, fresh) ? previous.value : fresh;
    last.current = { state, select, value };
    return value;
  };
  return useSyncExternalStore(store.subscribe, snapshot, snapshot);
}


/** The actions views call. */
export function useActions(): Actions {
  return useStore().actions;
}

/** The raw dispatch and command set, for the backend connection. */
export function useBackendHandles(): { dispatch: Dispatch<Action>; api: Commands } {
  const { store, api } = useStore();
  return { dispatch: store.dispatch, api };
}
