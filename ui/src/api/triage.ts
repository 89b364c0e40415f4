// The triage and rule types shared with the backend (generated), and what only the window adds.
export type { BatchDecision } from "../bindings/BatchDecision";
export type { BatchFailure } from "../bindings/BatchFailure";
export type { BatchReceipt } from "../bindings/BatchReceipt";
export type { Matcher } from "../bindings/Matcher";
export type { RuleOffer } from "../bindings/RuleOffer";
export type { RuleRecord } from "../bindings/RuleRecord";
export type { RuleSource } from "../bindings/RuleSource";
export type { RuleSpec } from "../bindings/RuleSpec";

/** The audit log's export formats. */
export type AuditFormat = "jsonl" | "csv";
