import type { EditableField } from "../bindings/EditableField";
import type { ErrorBody } from "../bindings/ErrorBody";
import type { QuestionRecord } from "../bindings/QuestionRecord";
import type { QuestionRequest } from "../bindings/QuestionRequest";
import type { ResolvedQuestion } from "../bindings/ResolvedQuestion";
import type { BatchDecision, BatchReceipt, RuleOffer, RuleRecord, RuleSource, RuleSpec } from "../api/triage";
import type { Handlers } from "./backend";
import { fixtureId } from "./fixtures";

const MIN = 60_000;

/** The projects and agents a seeded triage inbox spreads its questions over. */
export const TRIAGE_PROJECTS = ["/home/you/src/shop", "/home/you/src/api", "/home/you/src/docs", "/home/you/src/infra", "/home/you/src/mobile", "/home/you/src/site"];
export const TRIAGE_AGENTS = Array.from({ length: 20 }, (_, i) => `agent-${String(i + 1).padStart(2, "0")}`);
const COMMANDS = ["npm test", "npm run build", "git push origin main", "cargo test", "rm -rf dist", "docker compose up", "make deploy"];

/** An approval's request as Beckon serves it: with the choices it offers and the field that may be edited. */
export function approvalRequest(tool: string, input: Record<string, string>, project: string, editable?: EditableField): QuestionRequest {
  const what = input.command ?? input.file_path ?? tool;
  return {
    questions: [
      {
        question: `Allow ${tool}: ${what}?`,
        header: tool,
        multiSelect: false,
        options: [{ label: "Allow", description: "Run it once", preview: `\`\`\`\n${what}\n\`\`\`` }, { label: "Allow always", description: `${tool} ${what} in this project` }, { label: "Deny" }],
      },
    ],
    approval: {
      tool_name: tool,
      input,
      project,
      choices: ["Allow", "Allow always", "Deny"],
      ...(editable ? { editable_field: editable } : {}),
    },
  };
}

/**
 * The `n`th question of a seeded triage inbox: approvals, questions and forms in turn, from 20
 * agents over 6 projects, asked between a minute and two days before `now`.
 */
export function triageQuestion(n: number, sessionOf: (agent: string) => string, now: number): QuestionRecord {
  const agent = TRIAGE_AGENTS[n % TRIAGE_AGENTS.length] ?? "agent-01";
  const project = TRIAGE_PROJECTS[n % TRIAGE_PROJECTS.length] ?? "/home/you/src/shop";
  const kind = n % 3;
  const request: QuestionRequest =
    kind === 0
      ? approvalRequest("Bash", { command: `${COMMANDS[n % COMMANDS.length] ?? "npm test"} #${n}` }, project, "command")
      : kind === 1
        ? { questions: [{ question: `Ship build ${n} to staging?`, header: "Release", multiSelect: false, options: [{ label: "Ship", description: "Now" }, { label: "Wait", description: "Later" }] }], metadata: { project } }
        : { questions: [{ question: `Estimate for ticket ${n}?`, header: "Estimate", schema: { type: "integer", minimum: 0 } }], metadata: { project } };
  const id = fixtureId(3, n + 1);
  return {
    id, session_id: sessionOf(agent), tool_use_id: `toolu_t${n}`, agent, origin: [agent], request, status: "pending", outcome: null, answered_via: null, callback_url: null,
    // Spread over two days, oldest first by n.
    created_at_ms: now - MIN - Math.floor(((n * 7919) % 2880) * MIN), resolved_at_ms: null, expires_at_ms: null, expiry_policy: null,
  };
}

/** The commands the mock's rules answer. */
export type RulesCommand = "rules" | "create_rule" | "revoke_rule" | "rule_offers" | "dismiss_rule_offer" | "export_audit" | "answer_batch";

/** How the mock resolves one question (the backend's own resolve). */
export type Resolve = (id: string, decision: BatchDecision) => ResolvedQuestion;

/** The mock's rules, rule offers and audit export. */
export class MockRules {
  rules: RuleRecord[] = [];
  offers: RuleOffer[];
  /** Paths the audit export "wrote", newest last. */
  exports: string[] = [];
  private nextId = 1;

  constructor(now: number) {
    this.offers = [{ key: "Bash:npm test:/home/you/src/shop", spec: { tool: "Bash", matcher: { kind: "command", prefix: "npm test" }, project: "/home/you/src/shop" }, description: "Always allow `npm test` in shop?", allowed: 3, last_allowed_at_ms: now - 5 * MIN }];
    this.rules.push({ id: this.nextId++, spec: { tool: "Read", matcher: { kind: "tool" }, project: "/home/you/src/docs" }, key: "Read::/home/you/src/docs", description: "Every Read in docs", source: "hand", created_at_ms: now - 3 * 24 * 60 * MIN, fired: 12, last_fired_at_ms: now - 40 * MIN, revoked_at_ms: null });
  }

  /** Stores a rule after checking it as the backend does; errors name their field. */
  create(spec: RuleSpec, source: RuleSource, now: number): RuleRecord {
    if (spec.tool.trim() === "") throw { kind: "invalid_input", message: "Name the tool the rule allows.", field: "spec.tool" };
    if (spec.project.trim() === "" || !spec.project.startsWith("/")) throw { kind: "invalid_input", message: "The project must be an absolute folder path.", field: "spec.project" };
    if (spec.matcher.kind === "command" && spec.matcher.prefix.trim() === "") throw { kind: "invalid_input", message: "A command rule needs the start of the command.", field: "spec.matcher.prefix" };
    if (spec.matcher.kind === "path" && !spec.matcher.under.startsWith("/")) throw { kind: "invalid_input", message: "The path must be absolute.", field: "spec.matcher.under" };
    const what = spec.matcher.kind === "command" ? `\`${spec.matcher.prefix}\`` : spec.matcher.kind === "path" ? `${spec.tool} under ${spec.matcher.under}` : `every ${spec.tool}`;
    const rule: RuleRecord = { id: this.nextId++, spec, key: JSON.stringify(spec), description: `Allow ${what} in ${spec.project.split("/").pop() ?? spec.project}`, source, created_at_ms: now, fired: 0, last_fired_at_ms: null, revoked_at_ms: null };
    this.rules.push(rule);
    this.offers = this.offers.filter((offer) => JSON.stringify(offer.spec) !== JSON.stringify(spec));
    return rule;
  }

  /** The handlers of the rule, audit and batch commands. */
  handlers(now: () => number, resolve: Resolve): Pick<Handlers, RulesCommand> {
    return {
      rules: ({ includeRevoked }) => this.rules.filter((rule) => includeRevoked || rule.revoked_at_ms === null),
      create_rule: ({ spec, source }) => this.create(spec, source, now()),
      revoke_rule: ({ id }) => {
        const rule = this.rules.find((candidate) => candidate.id === id);
        if (!rule) throw { kind: "not_found", message: "No such rule." };
        rule.revoked_at_ms = now();
        return rule;
      },
      rule_offers: () => this.offers,
      dismiss_rule_offer: ({ key }) => {
        this.offers = this.offers.filter((offer) => offer.key !== key);
        return null;
      },
      export_audit: ({ format }) => {
        const path = `/home/you/Downloads/beckon-audit.${format === "csv" ? "csv" : "jsonl"}`;
        this.exports.push(path);
        return path;
      },
      answer_batch: ({ requestIds, decision }) => {
        const receipt: BatchReceipt = { resolved: [], failed: [] };
        for (const id of requestIds) {
          try {
            receipt.resolved.push(resolve(id, decision));
          } catch (error) {
            const body = error as { kind?: ErrorBody["kind"]; message?: string };
            receipt.failed.push({ request_id: id, error: { kind: body.kind ?? "internal", message: body.message ?? String(error) } });
          }
        }
        return receipt;
      },
    };
  }
}
