import { createContext, useContext, useMemo, useReducer, type Dispatch, type ReactNode } from "react";
import type { Answer } from "../bindings/Answer";
import type { RequestId } from "../bindings/RequestId";
import type { SessionCursor } from "../bindings/SessionCursor";
import type { SessionId } from "../bindings/SessionId";
import type { SettingsInput } from "../bindings/SettingsInput";
import type { SettingsView } from "../bindings/SettingsView";
import type { ErrorBody } from "../bindings/ErrorBody";
import { commands, type Commands } from "../api/commands";
import { errorBodyOf } from "../api/errors";
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
  loadMoreSessions: (after: SessionCursor) => Promise<void>;
  saveSettings: (settings: SettingsInput) => Promise<{ ok: true; settings: SettingsView } | { ok: false; error: ErrorBody }>;
  refreshMetrics: () => Promise<void>;
  /** The callback signing secret, read only when the person asks to see it. */
  callbackSecret: () => Promise<{ ok: true; secret: string } | { ok: false; error: ErrorBody }>;
  /** Replaces the callback signing secret; the new one comes back. */
  rotateCallbackSecret: () => Promise<{ ok: true; secret: string } | { ok: false; error: ErrorBody }>;
}

interface Store {
  state: AppState;
  dispatch: Dispatch<Action>;
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
  const [state, dispatch] = useReducer(reducer, initial);
  const { show } = useToasts();
  const actions = useMemo(() => makeActions(api, dispatch, show), [api, show]);
  const store = useMemo(() => ({ state, dispatch, actions, api }), [state, actions, api]);
  return <StoreContext.Provider value={store}>{children}</StoreContext.Provider>;
}

function useStore(): Store {
  const store = useContext(StoreContext);
  if (!store) throw new Error("useStore needs a StoreProvider");
  return store;
}

/** The window's state. */
export function useAppState(): AppState {
  return useStore().state;
}

/** The actions views call. */
export function useActions(): Actions {
  return useStore().actions;
}

/** The raw dispatch and command set, for the backend connection. */
export function useBackendHandles(): { dispatch: Dispatch<Action>; api: Commands } {
  const { dispatch, api } = useStore();
  return { dispatch, api };
}
