import type { AppState } from "./types";

/** The state before the bootstrap snapshot arrives. */
export const initialState: AppState = {
  lastSeq: 0,
  sessions: {},
  sessionsNext: null,
  deleted: {},
  failures: {},
  timelines: {},
  loaded: {},
  questions: {},
  pending: {},
  resumed: {},
  drafts: {},
  recentlyResolved: [],
  questionEpoch: 0,
  agents: [],
  agentProblems: [],
  defaultAgent: "",
  metrics: null,
  settings: null,
  dataDir: "",
  gateway: { url: null, problem: null },
  person: null,
  teamInboxes: [],
};
