import { useEffect, useId, useState, type KeyboardEvent } from "react";
import { errorBodyOf } from "../../api/errors";
import type { Matcher, RuleRecord, RuleSpec } from "../../api/triage";
import { absoluteTime, agoLabel } from "../../format/duration";
import { useNow } from "../../hooks/now";
import { useBackendHandles } from "../../state/store";
import { lastFolder } from "../../state/triage";
import { CodeText } from "../common/CodeText";
import { Spinner } from "../common/Spinner";

type MatcherKind = Matcher["kind"];

/** The "Add a rule" form as typed. */
interface RuleDraft {
  tool: string;
  kind: MatcherKind;
  /** The command prefix or the folder, depending on `kind`. */
  value: string;
  project: string;
}

const EMPTY_DRAFT: RuleDraft = { tool: "Bash", kind: "command", value: "", project: "" };

/** The spec a draft asks for. */
export function specOf(draft: RuleDraft): RuleSpec {
  const matcher: Matcher = draft.kind === "command" ? { kind: "command", prefix: draft.value.trim() } : draft.kind === "path" ? { kind: "path", under: draft.value.trim() } : { kind: "tool" };
  return { tool: draft.tool.trim(), matcher, project: draft.project.trim() };
}

/** Which form field a backend error names ("tool", "project", "prefix"/"under" → the value). */
function fieldOf(field: string | undefined): keyof RuleDraft | "general" {
  if (field === undefined) return "general";
  const last = field.split(".").pop() ?? field;
  if (last === "tool" || last === "project") return last;
  if (last === "prefix" || last === "under" || last === "matcher") return "value";
  return "general";
}

function RuleRow({ rule, now, busy, onRevoke }: { rule: RuleRecord; now: number; busy: boolean; onRevoke: () => void }) {
  const revoked = rule.revoked_at_ms !== null;
  return (
    <li className={`rule-row${revoked ? " is-revoked" : ""}`} data-rule-id={rule.id}>
      <div className="rule-main">
        <strong className="rule-description">
          <CodeText text={rule.description} />
        </strong>
        <span className="qhint">
          in <span title={rule.spec.project}>{lastFolder(rule.spec.project) || rule.spec.project}</span> · {rule.source === "offered" ? "offered" : "by hand"} · since{" "}
          <span title={absoluteTime(rule.created_at_ms)}>{agoLabel(rule.created_at_ms, now)}</span> · fired {rule.fired === 1 ? "once" : `${rule.fired} times`}
          {rule.last_fired_at_ms !== null ? (
            <>
              {" "}
              · last <span title={absoluteTime(rule.last_fired_at_ms)}>{agoLabel(rule.last_fired_at_ms, now)}</span>
            </>
          ) : null}
          {revoked && rule.revoked_at_ms !== null ? <> · revoked {agoLabel(rule.revoked_at_ms, now)}</> : null}
        </span>
      </div>
      {revoked ? null : (
        <button type="button" className="button button-small button-quiet" disabled={busy} onClick={onRevoke} aria-label={`Revoke rule ${rule.id}: ${rule.description}`}>
          Revoke
        </button>
      )}
    </li>
  );
}

/**
 * Settings › Rules: the standing rules that allow tool calls without asking — what each covers,
 * where, since when, how often it fired, where it came from — each revocable, and a form to add
 * one by hand (the backend checks it; its errors show beside the field they name).
 */
export function RulesSection() {
  const { api } = useBackendHandles();
  const now = useNow();
  const id = useId();
  const [rules, setRules] = useState<RuleRecord[] | null>(null);
  const [draft, setDraft] = useState<RuleDraft>(EMPTY_DRAFT);
  const [errors, setErrors] = useState<Partial<Record<keyof RuleDraft | "general", string>>>({});
  const [busy, setBusy] = useState(false);
  const [loadError, setLoadError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    api.rules(false).then(
      (found) => live && setRules(found),
      (failure: unknown) => live && setLoadError(errorBodyOf(failure).message),
    );
    return () => {
      live = false;
    };
  }, [api]);

  const add = async () => {
    if (busy) return;
    setBusy(true);
    setErrors({});
    try {
      const rule = await api.createRule(specOf(draft), "hand");
      setRules((old) => [...(old ?? []), rule]);
      setDraft({ ...EMPTY_DRAFT, project: draft.project });
    } catch (failure) {
      const body = errorBodyOf(failure);
      const found: Partial<Record<keyof RuleDraft | "general", string>> = {};
      const problems = body.problems && body.problems.length > 0 ? body.problems : [{ path: body.field ?? "", message: body.message }];
      for (const problem of problems) found[fieldOf(problem.path || undefined)] ??= problem.message;
      setErrors(found);
    }
    setBusy(false);
  };

  const revoke = async (rule: RuleRecord) => {
    setBusy(true);
    setLoadError(null);
    try {
      const revoked = await api.revokeRule(rule.id);
      setRules((old) => (old ?? []).filter((candidate) => candidate.id !== revoked.id));
    } catch (failure) {
      setLoadError(errorBodyOf(failure).message);
    }
    setBusy(false);
  };

  // Inside Settings' own form: Enter adds the rule instead of saving the settings.
  const onEnter = (event: KeyboardEvent) => {
    if (event.key !== "Enter") return;
    event.preventDefault();
    void add();
  };
  const field = (name: keyof RuleDraft) => ({
    "aria-invalid": errors[name] ? true : undefined,
    "aria-describedby": errors[name] ? `${id}-${name}-error` : undefined,
  });
  const error = (name: keyof RuleDraft) =>
    errors[name] ? (
      <p className="field-error" id={`${id}-${name}-error`}>
        {errors[name]}
      </p>
    ) : null;

  return (
    <fieldset className="settings-group rules" aria-labelledby={`${id}-title`}>
      <legend id={`${id}-title`}>Rules</legend>
      <p className="qhint">A rule allows matching tool calls in one project without asking you. Beckon offers one after you allowed the same thing several times.</p>
      {rules === null && loadError === null ? <Spinner label="Reading the rules" /> : null}
      {rules !== null && rules.length === 0 ? <p className="qhint">No rules yet.</p> : null}
      {rules !== null && rules.length > 0 ? (
        <ul className="rule-list" aria-label="Rules">
          {rules.map((rule) => (
            <RuleRow key={rule.id} rule={rule} now={now} busy={busy} onRevoke={() => void revoke(rule)} />
          ))}
        </ul>
      ) : null}
      {loadError ? <p className="form-error">{loadError}</p> : null}
      <div className="rule-form" role="group" aria-label="Add a rule">
        <h3 className="rule-form-title">Add a rule</h3>
        <div className="rule-fields">
          <div className="rule-field">
            <label className="rule-label">
              <span className="field-label">Tool</span>
              <input className="input" type="text" value={draft.tool} onChange={(event) => setDraft({ ...draft, tool: event.target.value })} onKeyDown={onEnter} {...field("tool")} />
            </label>
            {error("tool")}
          </div>
          <label className="rule-field">
            <span className="field-label">Covers</span>
            <select className="input" value={draft.kind} onChange={(event) => setDraft({ ...draft, kind: event.target.value as MatcherKind })}>
              <option value="command">Commands starting with</option>
              <option value="path">Files under a folder</option>
              <option value="tool">The whole tool</option>
            </select>
          </label>
          {draft.kind !== "tool" ? (
            <div className="rule-field">
              <label className="rule-label">
                <span className="field-label">{draft.kind === "command" ? "Command prefix" : "Folder"}</span>
                <input
                  className="input input-mono"
                  type="text"
                  placeholder={draft.kind === "command" ? "npm test" : "/home/you/src/shop/src"}
                  value={draft.value}
                  onChange={(event) => setDraft({ ...draft, value: event.target.value })}
                  onKeyDown={onEnter}
                  {...field("value")}
                />
              </label>
              {error("value")}
            </div>
          ) : null}
          <div className="rule-field">
            <label className="rule-label">
              <span className="field-label">Project</span>
              <input
                className="input input-mono"
                type="text"
                placeholder="/home/you/src/shop"
                value={draft.project}
                onChange={(event) => setDraft({ ...draft, project: event.target.value })}
                onKeyDown={onEnter}
                {...field("project")}
              />
            </label>
            {error("project")}
          </div>
        </div>
        {errors.general ? <p className="form-error">{errors.general}</p> : null}
        <button type="button" className="button button-small" onClick={() => void add()} disabled={busy}>
          {busy ? <Spinner /> : null}
          Add the rule
        </button>
      </div>
    </fieldset>
  );
}
