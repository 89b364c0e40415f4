import type { AnsweredVia } from "../bindings/AnsweredVia";
import type { RequestId } from "../bindings/RequestId";
import type { ResolvedQuestion } from "../bindings/ResolvedQuestion";

// Hand-written for now: these mirror the backend's triage and rule types and will be replaced by
// the generated bindings of the same shapes.

/** One decision applied to several questions at once. "Allow always" is never offered in bulk. */
export type BatchDecision = { kind: "deny"; message?: string | null } | { kind: "decline"; reason?: string | null } | { kind: "allow_once" };

/** What a batch came to: the questions it resolved and those it could not, with why. */
export type BatchReceipt = { resolved: ResolvedQuestion[]; failed: { id: RequestId; message: string }[] };

/** What a rule covers of a tool: commands starting with a prefix, paths under a folder, or every call. */
export type Matcher = { kind: "command"; prefix: string } | { kind: "path"; under: string } | { kind: "tool" };

/** A rule as asked for: a tool, what of it, in which project. */
export type RuleSpec = { tool: string; matcher: Matcher; project: string };

/** A stored rule and how it has been used. */
export type RuleRecord = {
  id: number;
  spec: RuleSpec;
  description: string;
  source: "offered" | "hand";
  created_at_ms: number;
  fired: number;
  last_fired_at_ms: number | null;
  revoked_at_ms: number | null;
};

/** A rule the backend suggests after the person allowed the same thing several times. */
export type RuleOffer = { key: string; spec: RuleSpec; description: string; allowed: number; last_allowed_at_ms: number };

/** The audit log's export formats. */
export type AuditFormat = "jsonl" | "csv";

/** Where an answer came from, including a standing rule (which the generated type will gain). */
export type AnsweredHow = AnsweredVia | "rule";
