import type { Bootstrap } from "../src/bindings/Bootstrap";
import type { PendingQuestion } from "../src/bindings/PendingQuestion";
import { inboxEntry, recordOf } from "./builders";
import type { SessionView } from "../src/bindings/SessionView";
import { initialState } from "../src/state/initial";
import { reducer } from "../src/state/reducer";
import type { AppState } from "../src/state/types";

/** A bootstrap snapshot, and the pending questions it lists by their line, whole. */
export type Snapshot = Bootstrap & { whole: PendingQuestion[] };

/**
 * A bootstrap snapshot with sensible empty defaults. Pending questions are given whole and
 * listed by their line, as the backend lists them.
 */
export function snapshot({ pending = [], ...fields }: Partial<Omit<Bootstrap, "pending">> & { pending?: PendingQuestion[] } = {}): Snapshot {
  return {
    whole: pending,
    pending: pending.map(inboxEntry),
    last_seq: 10,
    sessions: { sessions: [], next: null },
    agents: [{ name: "assistant", description: "Helps", provider: null, questions: true, builtin: true }],
    agent_problems: [],
    default_agent: "assistant",
    metrics: { pending: 0, longest_wait_ms: null, resolved: 4, decline_rate: 0.25, expire_rate: 0.5, cancel_rate: 0, answer_latency: { count: 1, p50_ms: 240_000, p90_ms: null, p99_ms: null }, agents: [] },
    settings: {
      anthropic: { key_set: true, key_from_env: false, base_url: null, model: null },
      openai: { key_set: false, key_from_env: true, base_url: null, model: null },
      default_agent: null,
      default_provider: null,
      do_not_disturb: false,
      reminder_minutes: 0,
      retention_days: null,
      scripts_may_approve: false,
      scripts_may_approve_from_env: false,
      slack: { enabled: false, bot_token_set: false, app_token_set: false, channel: null, person: null, api_base_url: null, after_minutes: 0, agents: [] },
      telegram: { enabled: false, bot_token_set: false, app_token_set: false, channel: null, person: null, api_base_url: null, after_minutes: 0, agents: [] },
      guide_dismissed: true,
      file: "/settings.toml",
      problem: null,
    },
    data_dir: "/data",
    navigate: null,
    gateway_url: "http://127.0.0.1:4000",
    gateway_problem: null,
    ...fields,
  };
}

/**
 * The state after a bootstrap, with the pending questions it lists fetched whole (as once their
 * cards were opened), and optionally some loaded sessions.
 */
export function stateFrom(data: Snapshot, ...views: SessionView[]): AppState {
  let state = reducer(initialState, { type: "bootstrap", data });
  for (const question of data.whole) state = reducer(state, { type: "question_loaded", question: recordOf(question) });
  for (const view of views) state = reducer(state, { type: "session_loaded", view });
  return state;
}
