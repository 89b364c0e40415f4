import type { AgentInfo } from "../bindings/AgentInfo";
import type { Message } from "../bindings/Message";
import type { QuestionRequest } from "../bindings/QuestionRequest";
import type { QuestionRecord } from "../bindings/QuestionRecord";
import type { SessionRecord } from "../bindings/SessionRecord";
import type { SettingsView } from "../bindings/SettingsView";
import type { TimelineEntry } from "../bindings/TimelineEntry";

/** A UUID-shaped id that reads well in fixtures. */
export function fixtureId(kind: number, n: number): string {
  return `01933c5e-${String(kind).padStart(4, "0")}-7000-8000-${String(n).padStart(12, "0")}`;
}

const MIN = 60_000;
const HOUR = 60 * MIN;

/** The world the mock backend starts from, relative to `now`. */
export interface Fixture {
  sessions: SessionRecord[];
  timelines: Record<string, TimelineEntry[]>;
  questions: QuestionRecord[];
  agents: AgentInfo[];
  settings: SettingsView;
}

function session(id: string, agent: string, title: string, status: SessionRecord["status"], createdAt: number, extra: Partial<SessionRecord> = {}): SessionRecord {
  const state: SessionRecord["state"] =
    status === "failed"
      ? { state: "failed", reason: "failed" }
      : status === "completed"
        ? { state: "completed" }
        : status === "cancelled"
          ? { state: "cancelled" }
          : { state: "idle" };
  return {
    id,
    agent,
    origin: "chat",
    parent: null,
    external_key: null,
    title,
    status,
    state,
    payload: null,
    created_at_ms: createdAt,
    updated_at_ms: createdAt,
    ...extra,
  };
}

function timeline(start: number, messages: Message[]): TimelineEntry[] {
  return messages.map((message, index) => ({ position: index + 1, message, at_ms: start + index * 20_000 }));
}

function question(fields: Pick<QuestionRecord, "id" | "session_id" | "tool_use_id" | "agent" | "origin" | "request" | "created_at_ms"> & Partial<QuestionRecord>): QuestionRecord {
  return {
    status: "pending",
    outcome: null,
    answered_via: null,
    callback_url: null,
    resolved_at_ms: null,
    expires_at_ms: null,
    expiry_policy: null,
    ...fields,
  };
}

/** Realistic data: three pending questions (one from a sub-agent, one free-form), sessions in every status, a long history. */
export function buildFixture(now: number): Fixture {
  const deploy = fixtureId(1, 1);
  const research = fixtureId(1, 2);
  const summariser = fixtureId(1, 3);
  const triage = fixtureId(1, 4);
  const release = fixtureId(1, 5);
  const reindex = fixtureId(1, 6);
  const incidents = fixtureId(1, 7);
  const flags = fixtureId(1, 8);
  const rename = fixtureId(1, 9);

  const qDeploy = fixtureId(2, 1);
  const qSources = fixtureId(2, 2);
  const qTriage = fixtureId(2, 3);
  const qGrouping = fixtureId(2, 4);
  const qFlags = fixtureId(2, 5);
  const qRename = fixtureId(2, 6);
  const qRenameLater = fixtureId(2, 7);

  const deployRequest: QuestionRequest = {
    questions: [
      {
        question: "The migration locks the orders table for about 40 seconds. When should it run?",
        header: "Migration",
        multiSelect: false,
        options: [
          { label: "Now", description: "Short write outage during business hours" },
          { label: "Tonight at 02:00", description: "Off-peak; the rollout waits until then" },
          { label: "Skip the migration", description: "Deploy without the schema change" },
        ],
      },
    ],
  };
  const sourcesRequest: QuestionRequest = {
    questions: [
      {
        question: "Which sources should the summary weigh most?",
        header: "Sources",
        multiSelect: true,
        options: [
          { label: "Vendor benchmarks", description: "Fast to read, but self-reported" },
          { label: "Independent papers", description: "Slower, peer reviewed" },
          { label: "Our load tests", description: "Only cover two of the candidates" },
          { label: "Community reports", description: "Forum threads and incident write-ups" },
        ],
      },
    ],
  };
  const triageRequest: QuestionRequest = {
    questions: [
      {
        question: "How severe is issue #4812 (checkout times out for EU customers)?",
        header: "Severity",
        schema: {
          type: "string",
          enum: ["p0", "p1", "p2", "p3"],
          enumNames: ["P0 — outage", "P1 — major", "P2 — minor", "P3 — cosmetic"],
        },
      },
      {
        question: "Who should own the follow-up?",
        header: "Owner",
        schema: { type: "string", format: "email", maxLength: 120 },
      },
    ],
  };
  const groupingRequest: QuestionRequest = {
    questions: [
      {
        question: "How should the release notes be grouped?",
        header: "Grouping",
        multiSelect: false,
        options: [
          { label: "By component", description: "API, desktop, CLI" },
          { label: "By change type", description: "Features, fixes, breaking changes" },
        ],
      },
    ],
  };
  const flagsRequest: QuestionRequest = {
    questions: [
      {
        question: "Delete the 14 flags that have been fully rolled out for 90 days?",
        header: "Flags",
        multiSelect: false,
        options: [{ label: "Delete all 14" }, { label: "Only the 9 without code references" }],
      },
    ],
  };
  const renameRequest: QuestionRequest = {
    questions: [{ question: "What should the billing module be called?", header: "Name", schema: { type: "string", minLength: 3, maxLength: 40 } }],
  };
  const renameLaterRequest: QuestionRequest = {
    questions: [{ question: "How many days should old imports keep working?", header: "Grace", schema: { type: "integer", minimum: 0, maximum: 90 } }],
  };

  const sessions = [
    session(deploy, "deploy-bot", "Roll out v2.3 to staging", "waiting_for_input", now - 2 * HOUR - 20 * MIN),
    session(research, "research", "Compare vector databases for search", "waiting_for_input", now - 50 * MIN),
    session(summariser, "summariser", "Summarise 14 sources on vector search", "waiting_for_input", now - 30 * MIN, { origin: "subagent", parent: research }),
    session(triage, "triage", "Triage GitHub issue #4812", "waiting_for_input", now - 6 * MIN, { origin: "webhook" }),
    session(release, "assistant", "Draft release notes for 2.3", "completed", now - 5 * HOUR),
    session(reindex, "research", "Reindex the documentation search", "running", now - 3 * MIN),
    session(incidents, "assistant", "Summarise last week's incidents", "failed", now - 26 * HOUR, {
      state: { state: "failed", reason: "The Anthropic API rejected the key (401 Unauthorized). Add a valid key in Settings, then send a message to try again." },
    }),
    session(flags, "deploy-bot", "Clean up stale feature flags", "cancelled", now - 2 * 24 * HOUR),
    session(rename, "assistant", "Rename the billing module", "completed", now - 3 * 24 * HOUR),
  ];

  const timelines: Record<string, TimelineEntry[]> = {
    [deploy]: timeline(now - 2 * HOUR - 20 * MIN, [
      { kind: "user", text: "Roll out v2.3 to staging and run the smoke tests." },
      { kind: "assistant", text: "Checking the release branch and the pending migrations first." },
      { kind: "tool_use", id: "toolu_d1", name: "run_checks", input: { branch: "release/2.3", suites: ["unit", "migrations"] } },
      { kind: "tool_result", tool_use_id: "toolu_d1", content: '{"passed": 412, "failed": 0, "migrations": ["0042_orders_add_region"]}', is_error: false },
      { kind: "assistant", text: "All checks pass. One migration (0042_orders_add_region) takes a table lock, so I need a decision before deploying." },
      { kind: "tool_use", id: "toolu_d2", name: "ask_user_question", input: deployRequest },
      { kind: "question", request_id: qDeploy, tool_use_id: "toolu_d2", origin: ["deploy-bot"], request: deployRequest },
    ]),
    [research]: timeline(now - 50 * MIN, [
      { kind: "user", text: "Compare pgvector, Qdrant and LanceDB for our search service. I care about ops cost most." },
      { kind: "assistant", text: "I'll gather sources and hand them to a summariser." },
      { kind: "tool_use", id: "toolu_r1", name: "spawn_agent", input: { agent: "summariser", task: "Summarise 14 sources on vector search" } },
    ]),
    [summariser]: timeline(now - 30 * MIN, [
      { kind: "user", text: "Summarise these 14 sources on vector search for an ops-cost comparison." },
      { kind: "tool_use", id: "toolu_s1", name: "ask_user_question", input: sourcesRequest },
      { kind: "question", request_id: qSources, tool_use_id: "toolu_s1", origin: ["research", "summariser"], request: sourcesRequest },
    ]),
    [triage]: timeline(now - 6 * MIN, [
      { kind: "user", text: "Webhook: issues.opened #4812 — \"Checkout times out for EU customers since Tuesday\"" },
      { kind: "assistant", text: "This looks like a regression in the payment gateway client. I need a severity and an owner." },
      { kind: "tool_use", id: "toolu_t1", name: "ask_user_question", input: triageRequest },
      { kind: "question", request_id: qTriage, tool_use_id: "toolu_t1", origin: ["triage"], request: triageRequest },
    ]),
    [release]: timeline(now - 5 * HOUR, [
      { kind: "user", text: "Draft the release notes for 2.3 from the merged PRs and the changelog fragments." },
      { kind: "assistant", text: "I'll start by listing the changelog fragments." },
      { kind: "tool_use", id: "toolu_1", name: "list_files", input: { path: "changelog.d" } },
      { kind: "tool_result", tool_use_id: "toolu_1", content: '["4711.feature.md", "4733.bugfix.md", "4790.bugfix.md", "4801.removal.md"]', is_error: false },
      { kind: "tool_use", id: "toolu_2", name: "read_file", input: { path: "changelog.d/4711.feature.md" } },
      { kind: "tool_result", tool_use_id: "toolu_2", content: "Questions can now be answered from the notification itself.", is_error: false },
      { kind: "tool_use", id: "toolu_3", name: "read_file", input: { path: "changelog.d/4790.bugfix.md" } },
      { kind: "tool_result", tool_use_id: "toolu_3", content: "No such file: changelog.d/4790.bugfix.md (it was renamed in #4795)", is_error: true },
      { kind: "assistant", text: "One fragment was renamed; I used the PR description instead. Before I write the final draft:" },
      { kind: "tool_use", id: "toolu_4", name: "ask_user_question", input: groupingRequest },
      { kind: "question", request_id: qGrouping, tool_use_id: "toolu_4", origin: ["assistant"], request: groupingRequest },
      { kind: "answer", request_id: qGrouping, outcome: { outcome: "answered", answers: [{ selected: ["By change type"], comment: "Put breaking changes first." }] } },
      { kind: "tool_result", tool_use_id: "toolu_4", content: '{"outcome":"answered","answers":{"How should the release notes be grouped?":"By change type"}}', is_error: false },
      {
        kind: "assistant",
        text: "Here is the draft:\n\n## Breaking changes\n- The `--legacy-ipc` flag is gone (#4801).\n\n## Features\n- Answer questions straight from the notification (#4711).\n- Keyboard shortcuts for every option: press 1–9.\n\n## Fixes\n- Long option labels no longer overflow the card (#4733).\n- Reminders respect Do Not Disturb (#4790).",
      },
      { kind: "user", text: "Great. Add a line about the new keyboard shortcuts to the summary too." },
      { kind: "assistant", text: "Done — the summary now mentions that every option has a number key, and Enter submits." },
    ]),
    [reindex]: timeline(now - 3 * MIN, [
      { kind: "user", text: "Reindex the documentation search after the 2.3 docs merge." },
      { kind: "assistant", text: "Starting the reindex. This takes a few minutes." },
      { kind: "tool_use", id: "toolu_x1", name: "http_request", input: { method: "POST", url: "http://127.0.0.1:7700/indexes/docs/reindex" } },
    ]),
    [incidents]: timeline(now - 26 * HOUR, [{ kind: "user", text: "Summarise last week's incidents for the Monday review." }]),
    [flags]: timeline(now - 2 * 24 * HOUR, [
      { kind: "user", text: "Find feature flags that are fully rolled out and propose deleting them." },
      { kind: "tool_use", id: "toolu_f1", name: "ask_user_question", input: flagsRequest },
      { kind: "question", request_id: qFlags, tool_use_id: "toolu_f1", origin: ["deploy-bot"], request: flagsRequest },
      { kind: "answer", request_id: qFlags, outcome: { outcome: "cancelled", reason: "The session was cancelled." } },
    ]),
    [rename]: timeline(now - 3 * 24 * HOUR, [
      { kind: "user", text: "Rename the billing module to something clearer." },
      { kind: "tool_use", id: "toolu_n1", name: "ask_user_question", input: renameRequest },
      { kind: "question", request_id: qRename, tool_use_id: "toolu_n1", origin: ["assistant"], request: renameRequest },
      { kind: "answer", request_id: qRename, outcome: { outcome: "declined", reason: "Not now — ask again after the audit." } },
      { kind: "tool_result", tool_use_id: "toolu_n1", content: '{"outcome":"declined"}', is_error: false },
      { kind: "tool_use", id: "toolu_n2", name: "ask_user_question", input: renameLaterRequest },
      { kind: "question", request_id: qRenameLater, tool_use_id: "toolu_n2", origin: ["assistant"], request: renameLaterRequest },
      { kind: "answer", request_id: qRenameLater, outcome: { outcome: "expired", default_answer: [{ value: 30 }] } },
      { kind: "tool_result", tool_use_id: "toolu_n2", content: '{"outcome":"expired"}', is_error: false },
      { kind: "assistant", text: "I'll leave the name as is and keep old imports working for 30 days, as the default says." },
    ]),
  };

  const questions: QuestionRecord[] = [
    question({ id: qDeploy, session_id: deploy, tool_use_id: "toolu_d2", agent: "deploy-bot", origin: ["deploy-bot"], request: deployRequest, created_at_ms: now - 2 * HOUR - 14 * MIN, expires_at_ms: now + 3 * HOUR + 46 * MIN }),
    question({ id: qSources, session_id: summariser, tool_use_id: "toolu_s1", agent: "summariser", origin: ["research", "summariser"], request: sourcesRequest, created_at_ms: now - 26 * MIN }),
    question({ id: qTriage, session_id: triage, tool_use_id: "toolu_t1", agent: "triage", origin: ["triage"], request: triageRequest, created_at_ms: now - 4 * MIN }),
    question({
      id: qGrouping,
      session_id: release,
      tool_use_id: "toolu_4",
      agent: "assistant",
      origin: ["assistant"],
      request: groupingRequest,
      created_at_ms: now - 5 * HOUR + 200_000,
      status: "answered",
      outcome: { outcome: "answered", answers: [{ selected: ["By change type"], comment: "Put breaking changes first." }] },
      answered_via: "notification",
      resolved_at_ms: now - 4 * HOUR - 41 * MIN,
    }),
    question({
      id: qFlags,
      session_id: flags,
      tool_use_id: "toolu_f1",
      agent: "deploy-bot",
      origin: ["deploy-bot"],
      request: flagsRequest,
      created_at_ms: now - 2 * 24 * HOUR + 40_000,
      status: "cancelled",
      outcome: { outcome: "cancelled", reason: "The session was cancelled." },
      resolved_at_ms: now - 2 * 24 * HOUR + 3 * HOUR,
    }),
    question({
      id: qRename,
      session_id: rename,
      tool_use_id: "toolu_n1",
      agent: "assistant",
      origin: ["assistant"],
      request: renameRequest,
      created_at_ms: now - 3 * 24 * HOUR + 40_000,
      status: "declined",
      outcome: { outcome: "declined", reason: "Not now — ask again after the audit." },
      answered_via: "tray",
      resolved_at_ms: now - 3 * 24 * HOUR + 20 * MIN,
    }),
    question({
      id: qRenameLater,
      session_id: rename,
      tool_use_id: "toolu_n2",
      agent: "assistant",
      origin: ["assistant"],
      request: renameLaterRequest,
      created_at_ms: now - 3 * 24 * HOUR + 30 * MIN,
      status: "expired",
      outcome: { outcome: "expired", default_answer: [{ value: 30 }] },
      resolved_at_ms: now - 3 * 24 * HOUR + 90 * MIN,
    }),
  ];

  const agents: AgentInfo[] = [
    { name: "assistant", description: "A general helper with file tools", provider: null, questions: true, builtin: true },
    { name: "demo", description: "The offline demo: asks a question with no API key", provider: "scripted", questions: true, builtin: true },
    { name: "poet", description: "Writes a short poem on any topic, asking you about style and tone first. Works offline, no API key needed.", provider: "scripted", questions: true, builtin: true },
    { name: "deploy-bot", description: "Rolls out releases and runs smoke tests", provider: "anthropic", questions: true, builtin: false },
    { name: "research", description: "Finds and compares sources", provider: "anthropic", questions: true, builtin: false },
    { name: "summariser", description: "Condenses sources into a brief", provider: "openai", questions: true, builtin: false },
    { name: "triage", description: "Labels and routes incoming issues (webhook)", provider: "anthropic", questions: true, builtin: false },
  ];

  const settings: SettingsView = {
    anthropic: { key_set: true, key_from_env: false, base_url: null, model: "claude-sonnet-4-5" },
    openai: { key_set: true, key_from_env: true, base_url: "http://127.0.0.1:11434/v1", model: "llama3.1" },
    default_agent: "assistant",
    default_provider: "anthropic",
    do_not_disturb: false,
    reminder_minutes: 30,
    retention_days: 90,
    scripts_may_approve: false,
    scripts_may_approve_from_env: false,
    slack: { enabled: true, bot_token_set: true, app_token_set: true, channel: "C04TEAMQ", person: "U04ADA", api_base_url: null, after_minutes: 10, agents: ["deploy-bot", "triage"] },
    telegram: { enabled: false, bot_token_set: true, app_token_set: false, channel: null, person: null, api_base_url: null, after_minutes: 0, agents: [] },
    guide_dismissed: true,
    file: "/home/you/.local/share/dev.beckon.desktop/settings.toml",
    problem: null,
  };

  return { sessions, timelines, questions, agents, settings };
}
