import type { ChannelInput } from "../bindings/ChannelInput";
import type { ChannelView } from "../bindings/ChannelView";
import type { AgentView } from "../bindings/AgentView";
import type { TokenView } from "../bindings/TokenView";
import type { Channel } from "@tauri-apps/api/core";
import type { AnswerReceipt } from "../bindings/AnswerReceipt";
import type { AnsweredVia } from "../bindings/AnsweredVia";
import type { Bootstrap } from "../bindings/Bootstrap";
import type { ErrorBody } from "../bindings/ErrorBody";
import type { ErrorKind } from "../bindings/ErrorKind";
import type { LiveEvent } from "../bindings/LiveEvent";
import type { Message } from "../bindings/Message";
import type { Metrics } from "../bindings/Metrics";
import type { NavTarget } from "../bindings/NavTarget";
import type { NotificationTest } from "../bindings/NotificationTest";
import type { Outcome } from "../bindings/Outcome";
import type { InboxEntry } from "../bindings/InboxEntry";
import type { TeamState } from "../bindings/TeamState";
import type { QuestionRecord } from "../bindings/QuestionRecord";
import type { QuestionRequest } from "../bindings/QuestionRequest";
import type { ResolvedQuestion } from "../bindings/ResolvedQuestion";
import type { SessionRecord } from "../bindings/SessionRecord";
import type { SessionStatus } from "../bindings/SessionStatus";
import type { SessionSummary } from "../bindings/SessionSummary";
import type { SessionView } from "../bindings/SessionView";
import type { SettingsInput } from "../bindings/SettingsInput";
import type { SettingsView } from "../bindings/SettingsView";
import type { TelegramPairing } from "../bindings/TelegramPairing";
import type { TimelineEntry } from "../bindings/TimelineEntry";
import type { UiEvent } from "../bindings/UiEvent";
import { emit as emitEvent } from "@tauri-apps/api/event";
import { buildFixture, fixtureId, type Fixture } from "./fixtures";
import { validateAnswers } from "./validate";
import type { BatchDecision } from "../api/triage";
import { MockRules, triageQuestion, type RulesCommand } from "./triage";
import type { ArgsOf, CommandName, ReplyOf } from "../api/transport";
import { lineOf } from "../state/triage";

type Args = Record<string, unknown>;

/** One handler per command the window sends, returning that command's reply. */
export type Handlers = { [N in CommandName]: (args: ArgsOf<N>) => ReplyOf<N> | Promise<ReplyOf<N>> };

/** A command failure the mock rejects with (the same shape the Rust side sends). */
class Failure {
  constructor(readonly body: ErrorBody) {}
}

function fail(kind: ErrorKind, message: string, extra: Partial<ErrorBody> = {}): never {
  throw new Failure({ kind, message, ...extra });
}

/** The desktop app's refusal of the pairing commands, as it words it: people pair their own accounts on a team server. */
function pairedOnATeamServer(): never {
  return fail("not_found", "people pair their own accounts on a team server, not in the desktop app");
}

/** The desktop app's refusal of a browser's push commands, as it words it. */
function pushedOnATeamServer(): never {
  return fail("not_found", "a team server pushes to browsers signed in to it; the desktop app notifies by itself");
}

const DEMO_QUESTION: QuestionRequest = {
  questions: [
    {
      question: "Which tone should the reply take?",
      header: "Tone",
      multiSelect: false,
      options: [
        { label: "Friendly", description: "Warm and informal" },
        { label: "Formal", description: "Precise and neutral" },
        { label: "Brief", description: "Two sentences at most" },
      ],
    },
  ],
};

/**
 * An in-memory stand-in for the Rust runtime: the same commands, errors and event stream,
 * with scripted agents that stream text, ask questions and resume when answered.
 */

/** The agents the mock knows: name, title, installed. */
const MOCK_AGENTS: [string, string, boolean][] = [
  ["claude-code", "Claude Code", true],
  ["codex", "Codex CLI", true],
  ["copilot", "Copilot CLI", false],
  ["opencode", "OpenCode", false],
  ["gemini", "Gemini CLI", false],
];
export class MockBackend {
  readonly calls: { cmd: string; args: unknown }[] = [];
  /** When true, `answer` and `decline` wait for `releaseHeld()` before doing anything. */
  holdAnswers = false;
  /** When set, `bootstrap` fails with it (to show the full-window error). */
  bootstrapError: ErrorBody | null = null;
  /** Where the window should open (as a deep link at cold start would ask). */
  startAt: NavTarget | null = null;
  private held: (() => void)[] = [];
  private seq = 100;
  private log: LiveEvent[] = [];
  private channel: Channel<UiEvent> | null = null;
  private sessions = new Map<string, SessionRecord>();
  private timelines = new Map<string, TimelineEntry[]>();
  private questions = new Map<string, QuestionRecord>();
  private settings: SettingsView;
  /** The agents Settings lists: Claude Code and Codex installed, the others not. */
  agents: AgentView[] = MOCK_AGENTS.map(([name, title, installed]) => ({
    name,
    title,
    state: installed ? "not_connected" : "not_installed",
    installed,
    answers_approvals: name !== "gemini",
    limits: name === "gemini" ? "Gemini CLI lets no outside program approve a tool call: its permission prompts arrive in Beckon as notices naming the command." : null,
    config_file: `/home/you/.${name}/settings.json`,
    program: "/usr/bin/beckon",
    next_step: `${title}'s prompts now reach Beckon.`,
    problem: null,
  }));
  /** The ask-only tokens, newest first. */
  tokens: TokenView[] = [];
  /** Whether Beckon starts at login (its login item exists). */
  startAtLogin = false;
  /** The `beckon` command's path, or null when it cannot be found. */
  beckonProgram: string | null = "/usr/bin/beckon";
  /** What the test notification comes to; when delivered, its button is "pressed" after `testPressAfterMs`. */
  testNotification: NotificationTest = { delivered: true, problem: null, do_not_disturb: false };
  testPressAfterMs: number | null = 1200;
  /** Telegram's pairing: the chat paired (set it to pair one), the code the person asked for, and a chat waiting to replace the paired one. */
  telegram: TelegramPairing = { chat: null, code: null, code_expires_at_ms: null, request: null };
  /** The code "Pair a chat" makes next. */
  nextTelegramCode = "7QK2M9XD";
  private secret = "b7c41e9d05a2f68c3e1d9b07a4f2c6e8d1b3a5c7e9f0a2b4c6d8e0f1a3b5c7d9";
  private readonly fixture: Fixture;
  private nextId = 1;
  /** The team inboxes followed and the questions waiting in them (none until `followTeams`). */
  teams: TeamState = { inboxes: [], waiting: [] };
  private teamQuestions = new Map<string, QuestionRecord>();
  /** Rules, rule offers and the audit export. */
  readonly rules: MockRules;
  /** The mock's answer to every command. */
  private readonly handlers: Handlers;

  constructor(now = Date.now()) {
    this.fixture = buildFixture(now);
    for (const session of this.fixture.sessions) this.sessions.set(session.id, session);
    for (const [id, entries] of Object.entries(this.fixture.timelines)) this.timelines.set(id, entries);
    for (const question of this.fixture.questions) this.questions.set(question.id, question);
    this.settings = this.fixture.settings;
    this.rules = new MockRules(now);
    this.handlers = this.makeHandlers();
  }

  /** Adds `n` pending questions from 20 agents over 6 projects, quietly (for a large inbox before start). */
  seedTriage(n: number, now = Date.now()): void {
    const sessions = new Map<string, string>();
    const sessionOf = (agent: string) => {
      let id = sessions.get(agent);
      if (!id) {
        id = this.addSession(agent, `Work of ${agent}`);
        sessions.set(agent, id);
      }
      return id;
    };
    for (let i = 0; i < n; i += 1) {
      const question = triageQuestion(i, sessionOf, now);
      this.questions.set(question.id, question);
    }
  }

  private resolveInBatch(requestId: string, decision: BatchDecision): ResolvedQuestion {
    const question = this.questions.get(requestId) ?? fail("not_found", "That question no longer exists.");
    if (question.status !== "pending") fail("already_resolved", "It was already resolved.");
    const approval = question.request.approval !== undefined;
    if (decision.decision === "allow_once") {
      if (!approval) fail("invalid_input", "Only approvals can be allowed.");
      return this.resolve(requestId, { outcome: "answered", answers: [{ selected: ["Allow"] }] }, "window");
    }
    if (decision.decision === "deny" && approval) {
      const message = decision.message?.trim();
      return this.resolve(requestId, { outcome: "answered", answers: [message ? { selected: ["Deny"], comment: message } : { selected: ["Deny"] }] }, "window");
    }
    const reason = decision.decision === "decline" ? decision.reason : decision.message;
    return this.resolve(requestId, { outcome: "declined", reason: reason ?? null }, "window");
  }

  /**
   * Answers an IPC call as the Rust side does: `window_command` carries a command's name and
   * arguments, `subscribe` the event channel. Each call is recorded by its command's name.
   */
  async handle(cmd: string, payload: Args): Promise<unknown> {
    try {
      if (cmd === "subscribe") {
        this.calls.push({ cmd, args: { afterSeq: payload.afterSeq } });
        return this.subscribe(Number(payload.afterSeq), payload.onEvent as Channel<UiEvent>);
      }
      if (cmd !== "window_command") return fail("not_found", `unknown IPC command ${cmd}`);
      const { command, args } = payload as { command: CommandName; args: ArgsOf<CommandName> };
      this.calls.push({ cmd: command, args: JSON.parse(JSON.stringify(args ?? {})) as unknown });
      return await this.run(command, args);
    } catch (error) {
      if (error instanceof Failure) throw error.body;
      if (typeof error === "object" && error !== null && "kind" in error && "message" in error) throw error;
      throw { kind: "internal", message: String(error) } satisfies ErrorBody;
    }
  }

  private run<N extends CommandName>(command: N, args: ArgsOf<N>): unknown {
    const handler = this.handlers[command] as ((args: ArgsOf<N>) => unknown) | undefined;
    return handler ? handler(args) : fail("not_found", `unknown command ${command}`);
  }

  /**
   * The mock's answer to every command the window sends, one handler each: a command the
   * generated bindings add fails the type-check here until the mock answers it.
   */
  private makeHandlers(): Handlers {
    return {
      ...this.rulesHandlers(),
      start: () => this.bootstrap(),
      bootstrap: () => this.bootstrap(),
      list_sessions: () => ({ sessions: this.topLevel(), next: null }),
      get_session: ({ sessionId }) => this.sessionView(sessionId),
      get_question: ({ requestId }) => this.questions.get(requestId) ?? this.teamQuestions.get(requestId) ?? fail("not_found", `no question ${requestId}`),
      start_session: ({ agent, message }) => this.startSession(agent, message),
      send_message: ({ sessionId, text }) => this.sendMessage(sessionId, text),
      answer: ({ requestId, answers }) => this.hold(() => this.resolveFromWindow(requestId, { outcome: "answered", answers })),
      decline: ({ requestId, reason }) => this.hold(() => this.resolveFromWindow(requestId, { outcome: "declined", reason: reason ?? null })),
      cancel: ({ sessionId }) => this.cancel(sessionId),
      metrics: () => this.metrics(),
      get_settings: () => this.settings,
      save_settings: ({ settings }) => this.saveSettings(settings),
      callback_secret: () => this.secret,
      rotate_callback_secret: () => {
        this.secret = `rotated-${this.nextId++}-3f9a1c0d7e5b2a4c6e8f0a1b3c5d7e9f`;
        return this.secret;
      },
      tokens: () => this.tokens,
      create_token: ({ name: given }) => {
        const name = given.trim();
        if (!/^[A-Za-z0-9._-]{1,40}$/.test(name)) fail("invalid_input", "a token's name is 1 to 40 letters, digits, '-', '_' or '.'");
        if (this.tokens.some((token) => token.name === name)) fail("invalid_input", `a live token is already named ${name}`);
        const token: TokenView = { name, kind: "ask_only", created_at_ms: Date.now(), last_used_at_ms: null, owner: null };
        this.tokens = [token, ...this.tokens];
        return { token, secret: `bkn_ask_mock${this.tokens.length}` };
      },
      revoke_token: ({ name }) => {
        const found = this.tokens.find((token) => token.name === name) ?? fail("not_found", `no live token is named ${name}`);
        this.tokens = this.tokens.filter((token) => token !== found);
        return found;
      },
      agents_status: () => this.agents,
      connect_agent: ({ name, remove }) => {
        const found = this.agents.find((agent) => agent.name === name) ?? fail("invalid_input", `Beckon connects no agent named ${name}`);
        const changed: AgentView = { ...found, state: remove ? (found.installed ? "not_connected" : "not_installed") : "connected" };
        this.agents = this.agents.map((agent) => (agent.name === changed.name ? changed : agent));
        return changed;
      },
      start_at_login: () => this.startAtLogin,
      set_start_at_login: ({ on }) => {
        this.startAtLogin = on;
        return this.startAtLogin;
      },
      beckon_command: () => this.beckonProgram,
      // The mock is one machine's Beckon, connected to no team inbox unless `followTeams` ran.
      team_inboxes: () => this.teams,
      add_team_inbox: () => fail("unavailable", "The mock connects to no team server."),
      sign_in_team_inbox: () => fail("not_found", "no such inbox"),
      remove_team_inbox: () => fail("not_found", "no such inbox"),
      send_test_notification: () => this.sendTestNotification(),
      dismiss_guide: () => {
        this.settings = { ...this.settings, guide_dismissed: true };
        return this.settings;
      },
      telegram_pairing: () => {
        if (!this.settings.telegram.bot_token_set) return fail("invalid_input", "Telegram has no bot token yet.");
        return this.telegram;
      },
      new_telegram_pairing_code: () => {
        this.telegram = { ...this.telegram, code: this.nextTelegramCode, code_expires_at_ms: Date.now() + 10 * 60_000, request: null };
        return this.telegram;
      },
      confirm_telegram_chat: ({ chat }) => this.settleTelegramChat(chat, true),
      refuse_telegram_chat: ({ chat }) => this.settleTelegramChat(chat, false),
      // Pairing a person's own account is a team server's.
      paired_channels: pairedOnATeamServer,
      pair_channel: pairedOnATeamServer,
      unpair_channel: pairedOnATeamServer,
      // Pushes go to browsers signed in to a team server.
      push_offer: pushedOnATeamServer,
      add_push_device: pushedOnATeamServer,
      remove_push_device: pushedOnATeamServer,
    };
  }

  private rulesHandlers(): Pick<Handlers, RulesCommand> {
    return this.rules.handlers(
      () => Date.now(),
      (id, decision) => this.resolveInBatch(id, decision),
    );
  }

  /** The person confirms (or refuses) `chat` as the paired chat. */
  private settleTelegramChat(chat: string, confirm: boolean): TelegramPairing {
    const request = this.telegram.request;
    if (request === null || request.chat !== chat) return fail("not_found", "that chat is no longer waiting to be paired: ask for a new code to pair it");
    this.telegram = { ...this.telegram, chat: confirm ? request.chat : this.telegram.chat, request: null };
    return this.telegram;
  }

  /** A new Beckon: no sessions, no questions, the guide not put away yet. */
  /**
   * Follows four team inboxes, one in each state a person sees (live, signed out, out of reach,
   * signing in), with two questions waiting in the live one.
   */
  followTeams(now = Date.now()): void {
    const inbox = (id: string, name: string, status: TeamState["inboxes"][number]["status"], as: string | null) => ({ id, name, url: `https://${name}.beckon.example.com`, signed_in_as: as, status });
    const waiting = (n: number, agent: string, request: QuestionRequest, ageMs: number): TeamState["waiting"][number] => {
      const [id, session_id, created_at_ms, expires_at_ms] = [fixtureId(7, n), fixtureId(8, n), now - ageMs, now + 3_600_000];
      this.teamQuestions.set(id, {
        id, session_id, tool_use_id: `toolu_team${n}`, agent, origin: [agent], request, status: "pending", outcome: null, answered_via: null, callback_url: null, created_at_ms, resolved_at_ms: null, expires_at_ms, expiry_policy: null,
      });
      return { inbox: "platform", entry: { id, session_id, agent, origin: [agent], line: lineOf(request), created_at_ms, expires_at_ms } };
    };
    this.teams = {
      inboxes: [
        inbox("t1", "platform", { state: "live" }, "Ada Lovelace"),
        inbox("t2", "payments", { state: "signed_out", problem: "the sign-in expired" }, null),
        inbox("t3", "research", { state: "unreachable", problem: "connection refused" }, "Ada Lovelace"),
        inbox("t4", "security", { state: "signing_in" }, null),
      ],
      waiting: [
        waiting(1, "release-bot", { questions: [{ question: "Promote build 812 to the EU fleet?", header: "Release", multiSelect: false, options: [{ label: "Promote" }, { label: "Hold" }] }] }, 600_000),
        waiting(2, "ci-bot", { questions: [{ question: "Allow Bash: terraform apply -target=module.dns?", header: "Bash", multiSelect: false, options: [{ label: "Allow" }, { label: "Deny" }] }], approval: { tool_name: "Bash", input: { command: "terraform apply -target=module.dns" }, project: "/srv/infra", choices: ["Allow", "Deny"], editable_field: "command" } }, 120_000),
      ],
    };
  }

  firstRun(): void {
    this.sessions.clear();
    this.timelines.clear();
    this.questions.clear();
    this.settings = { ...this.settings, guide_dismissed: false };
  }

  private sendTestNotification(): NotificationTest {
    const result = { ...this.testNotification, do_not_disturb: this.settings.do_not_disturb };
    const after = this.testPressAfterMs;
    if (result.delivered && after !== null) setTimeout(() => void emitEvent("test_notification_pressed", "test:pressed"), after);
    return result;
  }

  // ---- reading ----

  private bootstrap(): Bootstrap {
    if (this.bootstrapError) throw new Failure(this.bootstrapError);
    return {
      last_seq: this.seq,
      pending: this.inbox(),
      sessions: { sessions: this.topLevel(), next: null },
      agents: this.fixture.agents,
      agent_problems: [{ file: "agents/broken.md", message: "line 3: unknown provider \"antropic\" (did you mean anthropic?)" }],
      default_agent: this.settings.default_agent ?? "assistant",
      metrics: this.metrics(),
      settings: this.settings,
      data_dir: "/home/you/.local/share/dev.beckon.desktop",
      navigate: this.startAt,
      gateway_url: "http://127.0.0.1:47321",
      gateway_problem: null,
    };
  }

  private topLevel(): SessionSummary[] {
    return [...this.sessions.values()]
      .filter((session) => session.parent === null)
      .sort((a, b) => b.created_at_ms - a.created_at_ms)
      .map(({ id, agent, origin, parent, title, status, created_at_ms, updated_at_ms }) => ({ id, agent, origin, parent, title, status, created_at_ms, updated_at_ms }));
  }

  /** The inbox's lines, oldest first, as the backend lists them at start. */
  private inbox(): InboxEntry[] {
    return [...this.questions.values()]
      .filter((question) => question.status === "pending")
      .sort((a, b) => a.created_at_ms - b.created_at_ms)
      .map((question) => ({
        id: question.id,
        session_id: question.session_id,
        agent: question.agent,
        origin: question.origin,
        line: lineOf(question.request),
        created_at_ms: question.created_at_ms,
        expires_at_ms: question.expires_at_ms,
      }));
  }

  private sessionView(id: string): SessionView {
    const session = this.sessions.get(id) ?? fail("not_found", `no session ${id}`);
    const questions = [...this.questions.values()].filter((question) => question.session_id === id).sort((a, b) => a.created_at_ms - b.created_at_ms);
    return { session, timeline: this.timelines.get(id) ?? [], pending: questions.find((question) => question.status === "pending") ?? null, questions };
  }

  private metrics(): Metrics {
    const all = [...this.questions.values()];
    const resolved = all.filter((question) => question.status !== "pending");
    const share = (status: string) => (resolved.length === 0 ? 0 : resolved.filter((question) => question.status === status).length / resolved.length);
    const latencies = all
      .filter((question) => question.status === "answered" && question.resolved_at_ms !== null)
      .map((question) => (question.resolved_at_ms ?? 0) - question.created_at_ms)
      .sort((a, b) => a - b);
    const pick = (p: number) => (latencies.length === 0 ? null : latencies[Math.min(latencies.length - 1, Math.ceil(p * latencies.length) - 1)] ?? null);
    const pendingNow = all.filter((question) => question.status === "pending");
    const agents = [...new Set(all.map((question) => question.agent))].map((agent) => {
      const mine = all.filter((question) => question.agent === agent);
      const count = (status: string) => mine.filter((question) => question.status === status).length;
      return { agent, asked: mine.length, pending: count("pending"), answered: count("answered"), declined: count("declined"), expired: count("expired"), cancelled: count("cancelled"), waiting_ms: 0 };
    });
    return {
      pending: pendingNow.length,
      longest_wait_ms: pendingNow.length === 0 ? null : Date.now() - Math.min(...pendingNow.map((question) => question.created_at_ms)),
      resolved: resolved.length,
      decline_rate: share("declined"),
      expire_rate: share("expired"),
      cancel_rate: share("cancelled"),
      answer_latency: { count: latencies.length, p50_ms: pick(0.5) ?? 19 * 60_000, p90_ms: pick(0.9), p99_ms: pick(0.99) },
      agents,
    };
  }

  // ---- the event stream ----

  private subscribe(afterSeq: number, channel: Channel<UiEvent>): null {
    this.channel = channel;
    const backlog = this.log.filter((event) => event.seq > afterSeq);
    setTimeout(() => backlog.forEach((event) => this.send({ type: "live", event })), 0);
    return null;
  }

  private send(event: UiEvent): void {
    this.channel?.onmessage(event);
  }

  /** Commits an event: gives it the next seq, logs it and sends it. */
  emit(event: DistributiveOmit<LiveEvent, "seq">): void {
    this.seq += 1;
    const live = { ...event, seq: this.seq } as LiveEvent;
    this.log.push(live);
    setTimeout(() => this.send({ type: "live", event: live }), 0);
  }

  /** Sends assistant text as it "streams". */
  delta(sessionId: string, text: string): void {
    setTimeout(() => this.send({ type: "text_delta", session_id: sessionId, text }), 0);
  }

  // ---- changing things ----

  private id(kind: number): string {
    return fixtureId(kind, 900 + this.nextId++);
  }

  private append(sessionId: string, message: Message): void {
    const timeline = this.timelines.get(sessionId) ?? [];
    const entry = { position: timeline.length + 1, message, at_ms: Date.now() };
    this.timelines.set(sessionId, [...timeline, entry]);
    this.emit({ kind: "message_appended", session_id: sessionId, entry });
  }

  private setStatus(sessionId: string, status: SessionStatus, reason: string | null = null): void {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    const at = Date.now();
    this.sessions.set(sessionId, { ...session, status, updated_at_ms: at, state: status === "failed" ? { state: "failed", reason: reason ?? "" } : session.state });
    this.emit({ kind: "session_status", session_id: sessionId, status, reason, at_ms: at });
    if (session.parent && (status === "waiting_for_input" || status === "running")) this.setStatus(session.parent, status);
  }

  /** Adds a session (used by scripted agents and by tests). */
  addSession(agent: string, title: string, parent: string | null = null): string {
    const id = this.id(1);
    const at = Date.now();
    this.sessions.set(id, {
      id, agent, origin: parent ? "subagent" : "chat", parent, external_key: null, title, status: "running", state: { state: "llm_requesting", attempt: 1 }, payload: null, created_at_ms: at, updated_at_ms: at,
    });
    this.timelines.set(id, []);
    this.emit({ kind: "session_started", session_id: id, agent, origin: parent ? "subagent" : "chat", parent, title, status: "running", at_ms: at });
    return id;
  }

  /** An agent asks: the question is stored, shown in the timeline and the inbox, the session waits. */
  ask(sessionId: string, request: QuestionRequest, origin?: string[], expiresInMs: number | null = null): string {
    const session = this.sessions.get(sessionId) ?? fail("not_found", "no session");
    const id = this.id(2);
    const toolUseId = `toolu_${id.slice(-6)}`;
    const chain = origin ?? [session.agent];
    const at = Date.now();
    const record: QuestionRecord = {
      id, session_id: sessionId, tool_use_id: toolUseId, agent: session.agent, origin: chain, request, status: "pending", outcome: null, answered_via: null, callback_url: null, created_at_ms: at, resolved_at_ms: null, expires_at_ms: expiresInMs === null ? null : at + expiresInMs, expiry_policy: null,
    };
    this.questions.set(id, record);
    this.append(sessionId, { kind: "tool_use", id: toolUseId, name: "ask_user_question", input: request });
    this.append(sessionId, { kind: "question", request_id: id, tool_use_id: toolUseId, origin: chain, request });
    this.emit({ kind: "question_pending", question: { id, session_id: sessionId, agent: session.agent, origin: chain, request, created_at_ms: at, expires_at_ms: record.expires_at_ms } });
    this.setStatus(sessionId, "waiting_for_input");
    return id;
  }

  /** Streams assistant text in chunks, then commits it. */
  say(sessionId: string, text: string, then?: () => void): void {
    const words = text.split(/(?<=\s)/);
    let index = 0;
    const tick = () => {
      if (index < words.length) {
        this.delta(sessionId, words.slice(index, index + 3).join(""));
        index += 3;
        setTimeout(tick, 45);
        return;
      }
      this.append(sessionId, { kind: "assistant", text });
      then?.();
    };
    tick();
  }

  private hold<T>(run: () => T): Promise<T> {
    if (!this.holdAnswers) return Promise.resolve().then(run);
    return new Promise<T>((resolve, reject) => {
      this.held.push(() => {
        try {
          resolve(run());
        } catch (error) {
          reject(error);
        }
      });
    });
  }

  /** Lets held answers through, in order. */
  releaseHeld(): void {
    const held = this.held;
    this.held = [];
    held.forEach((run) => run());
  }

  private resolveFromWindow(requestId: string, outcome: Outcome): AnswerReceipt {
    const question = this.questions.get(requestId) ?? fail("not_found", "That question no longer exists.");
    if (question.status !== "pending") {
      const winner = this.resolution(question);
      if (JSON.stringify(question.outcome) === JSON.stringify(outcome)) return { question: winner, repeat: true };
      return fail("already_resolved", "This question was already resolved.", { winner });
    }
    if (outcome.outcome === "answered") {
      const problems = validateAnswers(question.request, outcome.answers);
      if (problems.length > 0) fail("invalid_answer", problems[0]?.message ?? "invalid answer", { field: problems[0]?.path, problems });
    }
    return { question: this.resolve(requestId, outcome, "window"), repeat: false };
  }

  private resolution(question: QuestionRecord): ResolvedQuestion {
    return { id: question.id, session_id: question.session_id, status: question.status, outcome: question.outcome as Outcome, answered_via: question.answered_via, resolved_at_ms: question.resolved_at_ms ?? Date.now() };
  }

  /** Resolves a question as any front end would, then lets its agent carry on. */
  resolve(requestId: string, outcome: Outcome, via: AnsweredVia | null): ResolvedQuestion {
    const question = this.questions.get(requestId) ?? fail("not_found", "no question");
    if (question.status !== "pending") return this.resolution(question);
    const at = Date.now();
    const resolved: QuestionRecord = { ...question, status: outcome.outcome, outcome, answered_via: via, resolved_at_ms: at };
    this.questions.set(requestId, resolved);
    this.append(question.session_id, { kind: "answer", request_id: requestId, outcome });
    this.emit({ kind: "question_resolved", session_id: question.session_id, request_id: requestId, status: outcome.outcome, outcome, answered_via: via, at_ms: at, question: resolved });
    if (outcome.outcome !== "cancelled") setTimeout(() => this.resume(resolved), 700);
    return this.resolution(resolved);
  }

  private resume(question: QuestionRecord): void {
    const session = this.sessions.get(question.session_id);
    if (!session || session.status === "cancelled") return;
    this.emit({ kind: "session_resumed", session_id: question.session_id, request_id: question.id });
    this.append(question.session_id, { kind: "tool_result", tool_use_id: question.tool_use_id, content: JSON.stringify(question.outcome), is_error: false });
    this.setStatus(question.session_id, "running");
    const reply =
      question.outcome?.outcome === "answered"
        ? "Thanks — that settles it. Carrying on with your answer."
        : "Understood, I'll continue without that and note the open point.";
    this.say(question.session_id, reply, () => {
      this.setStatus(question.session_id, "completed");
      if (session.parent) this.setStatus(session.parent, "completed");
    });
  }

  private startSession(agent: string, message: string): string {
    if (!this.fixture.agents.some((info) => info.name === agent)) fail("invalid_input", `There is no agent named ${agent}.`, { field: "agent" });
    const id = this.addSession(agent, message.length > 60 ? `${message.slice(0, 57)}…` : message);
    this.append(id, { kind: "user", text: message });
    setTimeout(() => this.say(id, "Happy to help. One thing first, so I get it right:", () => this.ask(id, DEMO_QUESTION)), 300);
    return id;
  }

  private sendMessage(sessionId: string, text: string): null {
    const session = this.sessions.get(sessionId) ?? fail("not_found", "no session");
    if (session.status !== "completed" && session.status !== "failed") fail("wrong_state", "The session is busy; wait until it finishes.");
    this.append(sessionId, { kind: "user", text });
    this.setStatus(sessionId, "running");
    setTimeout(() => this.say(sessionId, `Noted: "${text}". Done.`, () => this.setStatus(sessionId, "completed")), 300);
    return null;
  }

  private cancel(sessionId: string): null {
    const session = this.sessions.get(sessionId) ?? fail("not_found", "no session");
    if (session.status !== "running" && session.status !== "waiting_for_input") fail("wrong_state", "Only a running or waiting session can be cancelled.");
    for (const question of this.questions.values()) {
      if (question.session_id === sessionId && question.status === "pending") this.resolve(question.id, { outcome: "cancelled", reason: "The session was cancelled." }, null);
    }
    this.setStatus(sessionId, "cancelled");
    return null;
  }

  /** A channel's new view, as the Rust side would save it (tokens absent keep, "" clears, a new address drops them). */
  private channelSettings(key: "slack" | "telegram", view: ChannelView, change: ChannelInput | undefined): ChannelView {
    if (!change) return view;
    const name = key === "slack" ? "Slack" : "Telegram";
    const refuse = (field: string, message: string): never => fail("invalid_input", message, { field: `${key}.${field}`, problems: [{ path: `${key}.${field}`, message }] });
    const moved = change.api_base_url !== view.api_base_url;
    const token = (was: boolean, given: string | undefined) => (given === undefined ? was && !moved : given !== "");
    const next: ChannelView = {
      enabled: change.enabled,
      bot_token_set: token(view.bot_token_set, change.bot_token),
      app_token_set: key === "slack" && token(view.app_token_set, change.app_token),
      channel: change.channel,
      person: change.person,
      api_base_url: change.api_base_url,
      after_minutes: change.after_minutes,
      agents: change.agents,
    };
    if (next.channel !== null && !/^[A-Z0-9]{2,20}$/.test(next.channel)) {
      refuse("channel", `Slack's channel must be a channel or member id such as C0123456789 (2 to 20 capital letters and digits), not "${next.channel}".`);
    }
    if (next.person !== null && !/^[UW][A-Z0-9]{1,19}$/.test(next.person)) {
      refuse("person", `Slack's person must be your own member id such as U0123456789 (in Slack: your profile › ⋮ › Copy member ID), not "${next.person}".`);
    }
    if (next.api_base_url !== null && !/^https?:\/\/\S+$/.test(next.api_base_url)) refuse("api_base_url", `${name}'s API address must be an http:// or https:// address without spaces.`);
    if (next.after_minutes > 10080) refuse("after_minutes", `${name}'s "post only after" must be at most 10080 minutes (a week), not ${next.after_minutes}.`);
    if (next.agents.length > 32) refuse("agents", `${name}'s agent list names ${next.agents.length} agents; at most 32 are allowed.`);
    const wrong = next.agents.find((agent) => !/^[A-Za-z0-9_.:/-]{1,64}$/.test(agent));
    if (wrong !== undefined) refuse("agents", `${name}'s agent list: "${wrong}" is not an agent name (1 to 64 letters, digits, '-', '_', '.', ':' or '/').`);
    if (next.enabled) {
      if (key === "slack" && !next.app_token_set) refuse("app_token", "Slack is on but has no app-level token: give one, or turn Slack off.");
      if (!next.bot_token_set) refuse("bot_token", `${name} is on but has no bot token: give one, or turn ${name} off.`);
      if (key === "slack" && next.channel === null && next.person === null) refuse("person", "Slack is on but has no person or channel: give one, or turn Slack off.");
    }
    return next;
  }

  private saveSettings(input: SettingsInput): SettingsView {
    const provider = (view: SettingsView["anthropic"], change: SettingsInput["anthropic"]) => ({
      key_set: change.api_key === undefined ? view.key_set : change.api_key !== "" || view.key_from_env,
      key_from_env: view.key_from_env,
      base_url: change.base_url,
      model: change.model,
    });
    // Checked before anything changes: a refused save saves nothing.
    const slack = this.channelSettings("slack", this.settings.slack, input.slack);
    const telegram = this.channelSettings("telegram", this.settings.telegram, input.telegram);
    this.settings = {
      ...this.settings,
      slack,
      telegram,
      anthropic: provider(this.settings.anthropic, input.anthropic),
      openai: provider(this.settings.openai, input.openai),
      default_agent: input.default_agent,
      default_provider: input.default_provider,
      do_not_disturb: input.do_not_disturb,
      reminder_minutes: input.reminder_minutes,
      retention_days: input.retention_days,
      scripts_may_approve: input.scripts_may_approve ?? this.settings.scripts_may_approve,
    };
    return this.settings;
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
