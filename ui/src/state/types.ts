import type { AgentInfo } from "../bindings/AgentInfo";
import type { AgentProblem } from "../bindings/AgentProblem";
import type { AnsweredVia } from "../bindings/AnsweredVia";
import type { Bootstrap } from "../bindings/Bootstrap";
import type { ErrorBody } from "../bindings/ErrorBody";
import type { InboxLine } from "../bindings/InboxLine";
import type { LiveEvent } from "../bindings/LiveEvent";
import type { Metrics } from "../bindings/Metrics";
import type { Origin } from "../bindings/Origin";
import type { Outcome } from "../bindings/Outcome";
import type { QuestionRecord } from "../bindings/QuestionRecord";
import type { QuestionRequest } from "../bindings/QuestionRequest";
import type { QuestionStatus } from "../bindings/QuestionStatus";
import type { RequestId } from "../bindings/RequestId";
import type { ResolvedQuestion } from "../bindings/ResolvedQuestion";
import type { SessionCursor } from "../bindings/SessionCursor";
import type { SessionId } from "../bindings/SessionId";
import type { SessionPage } from "../bindings/SessionPage";
import type { SessionSummary } from "../bindings/SessionSummary";
import type { SessionView } from "../bindings/SessionView";
import type { SettingsView } from "../bindings/SettingsView";
import type { TimelineEntry } from "../bindings/TimelineEntry";
import type { WindowSnapshot } from "../bindings/WindowSnapshot";
import type { TeamInboxView } from "../bindings/TeamInboxView";
import type { TeamState } from "../bindings/TeamState";
import type { SignedInPerson } from "../api/transport";

/**
 * Everything the window knows about one question, merged from the pending list, session
 * views, timeline entries and events. Fields a source does not carry stay null until another
 * source fills them.
 */
export interface QuestionInfo {
  id: RequestId;
  session_id: SessionId;
  tool_use_id: string | null;
  agent: string;
  origin: Origin;
  /** What is asked; null while only its inbox line is known (it is fetched when opened). */
  request: QuestionRequest | null;
  /** The inbox's line for it, as the backend made it (the list's start-up snapshot carries it). */
  line: InboxLine | null;
  status: QuestionStatus;
  outcome: Outcome | null;
  /** How it was answered: a front end, or a standing rule ("rule", with `answered_by` "rule 3"). */
  answered_via: AnsweredVia | null;
  /** Who answered, when the front end knew them (a Slack or Telegram person). */
  answered_by?: string | null;
  /** Who asked, on a team server: the signed-in person or the token it was asked with. */
  asked_by?: string | null;
  created_at_ms: number | null;
  resolved_at_ms: number | null;
  expires_at_ms: number | null;
  /** The team inbox it waits in (its name), when it is not this machine's. */
  inbox?: string | null;
  /**
   * On a team server, for an admin reading someone else's question: whom it is addressed to
   * (`person:ada`, `group:web`). They alone may answer it; the card shows it without its form.
   */
  only_for?: string | null;
}

/** A question whose request is known: what a card draws. */
export type LoadedQuestion = QuestionInfo & { request: QuestionRequest };

/** The window's copy of the backend's state, kept current by events. */
export interface AppState {
  /** The seq of the last event applied; events at or below it are already reflected. */
  lastSeq: number;
  /** Every session the window has heard of (sub-agents included), by id. */
  sessions: Record<SessionId, SessionSummary>;
  /** Where the sidebar's next page of sessions starts. */
  sessionsNext: SessionCursor | null;
  /** Sessions deleted since start; a late snapshot must not bring them back. */
  deleted: Record<SessionId, true>;
  /** Why a failed session failed. */
  failures: Record<SessionId, string>;
  /** Committed timelines, ascending by position, one entry per position. */
  timelines: Record<SessionId, TimelineEntry[]>;
  /** Sessions whose full view has been fetched at least once. */
  loaded: Record<SessionId, true>;
  questions: Record<RequestId, QuestionInfo>;
  /** The questions in the inbox (pending). */
  pending: Record<RequestId, true>;
  /** Questions whose session continued after them. */
  resumed: Record<RequestId, true>;
  /** Assistant text streaming in, per session, until its committed message arrives. */
  drafts: Record<SessionId, string>;
  /** Questions resolved while the inbox was open: they stay there, read-only, until it closes. */
  recentlyResolved: RequestId[];
  /** Bumped whenever a question is asked or resolved (metrics are refreshed after it). */
  questionEpoch: number;
  agents: AgentInfo[];
  agentProblems: AgentProblem[];
  defaultAgent: string;
  metrics: Metrics | null;
  settings: SettingsView | null;
  dataDir: string;
  /** The local gateway's address for external agents, or why it is not running. */
  gateway: { url: string | null; problem: string | null };
  /**
   * Who is signed in when the window runs in a browser on a team server; null in the desktop
   * app. What only the desktop app does (settings, local agents, the guide) is hidden with it.
   */
  person: SignedInPerson | null;
  /** The team inboxes the desktop app is connected to, and where each stands. */
  teamInboxes: TeamInboxView[];
}

/** What answering or skipping a question came to. */
export type SubmitResult = { ok: true } | { ok: false; error: ErrorBody };

export type Action =
  | { type: "bootstrap"; data: Bootstrap }
  | { type: "team_bootstrap"; data: WindowSnapshot; person: SignedInPerson }
  | { type: "team_inboxes"; state: TeamState }
  | { type: "live"; event: LiveEvent }
  | { type: "text_delta"; sessionId: SessionId; text: string }
  | { type: "session_loaded"; view: SessionView }
  | { type: "question_loaded"; question: QuestionRecord }
  | { type: "sessions_page"; page: SessionPage }
  | { type: "resolved"; question: ResolvedQuestion }
  | { type: "metrics"; metrics: Metrics }
  | { type: "settings"; settings: SettingsView }
  | { type: "inbox_left" };
