import type { Metrics } from "../../bindings/Metrics";
import { formatDuration } from "../../format/duration";
import { percent } from "../../format/labels";
import { useNow } from "../../hooks/now";
import { pendingQuestions } from "../../state/selectors";
import { sameItems, useAppSelector } from "../../state/store";

function total(metrics: Metrics, key: "declined" | "expired"): number {
  return metrics.agents.reduce((sum, agent) => sum + agent[key], 0);
}

function Figure({ label, value, detail }: { label: string; value: string; detail?: string }) {
  return (
    <div className="figure">
      <dt>{label}</dt>
      <dd>
        {value}
        {detail ? <span className="figure-detail"> {detail}</span> : null}
      </dd>
    </div>
  );
}

/** What the median and the rates are taken over, since they count every question so far. */
function period(metrics: Metrics | null): string {
  if (!metrics || metrics.resolved === 0) return "No question resolved yet";
  const n = metrics.resolved;
  return `Median and rates over all ${n} resolved question${n === 1 ? "" : "s"}`;
}

/**
 * Answering figures at a glance. "Pending" and "Longest wait" come from the live inbox so they
 * move with it; the rest are the backend's figures over every resolved question, refreshed
 * after questions change.
 */
export function MetricsPanel() {
  const now = useNow();
  const metrics = useAppSelector((state) => state.metrics);
  const pending = useAppSelector(pendingQuestions, sameItems);
  const oldest = pending[0]?.created_at_ms ?? null;
  const longest = oldest !== null ? now - oldest : metrics?.longest_wait_ms ?? null;
  const median = metrics?.answer_latency.p50_ms ?? null;
  return (
    <section className="metrics" aria-labelledby="metrics-title">
      <h2 className="sidebar-heading" id="metrics-title">
        Answering
      </h2>
      <dl className="figures">
        <Figure label="Pending now" value={String(pending.length)} />
        <Figure label="Median answer" value={median !== null ? formatDuration(median) : "—"} />
        <Figure label="Longest wait" value={longest !== null ? formatDuration(longest) : "—"} />
        <Figure
          label="Declined"
          value={metrics ? percent(metrics.decline_rate) : "—"}
          detail={metrics ? `(${total(metrics, "declined")})` : undefined}
        />
        <Figure
          label="Expired"
          value={metrics ? percent(metrics.expire_rate) : "—"}
          detail={metrics ? `(${total(metrics, "expired")})` : undefined}
        />
      </dl>
      <p className="figures-period">{period(metrics)}</p>
    </section>
  );
}
