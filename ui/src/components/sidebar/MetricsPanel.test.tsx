import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { Metrics } from "../../bindings/Metrics";
import { MINUTE, NOW, pending } from "../../../test/builders";
import { renderWithStore } from "../../../test/render";
import { snapshot, stateFrom } from "../../../test/state";
import { MetricsPanel } from "./MetricsPanel";

function show(metrics: Partial<Metrics>, pendingQuestions = [pending("q-1", NOW - 7 * MINUTE)]) {
  const base = snapshot().metrics;
  renderWithStore(<MetricsPanel />, { state: stateFrom(snapshot({ metrics: { ...base, ...metrics }, pending: pendingQuestions })) });
  return screen.getByRole("region", { name: "Answering" });
}

function figure(panel: HTMLElement, label: string): string {
  const term = within(panel).getByText(label);
  return term.nextElementSibling?.textContent ?? "";
}

describe("MetricsPanel", () => {
  it("says what the median and the rates are taken over", () => {
    const panel = show({ resolved: 4, decline_rate: 0.25 });
    expect(within(panel).getByText("Median and rates over all 4 resolved questions")).toBeInTheDocument();
    expect(figure(panel, "Declined")).toBe("25% (0)");
  });

  it("counts one resolved question in the singular", () => {
    const panel = show({ resolved: 1 });
    expect(within(panel).getByText("Median and rates over all 1 resolved question")).toBeInTheDocument();
  });

  it("says so when nothing has been resolved, and the live figures still show", () => {
    const panel = show({ resolved: 0, answer_latency: { count: 0, p50_ms: null, p90_ms: null, p99_ms: null } });
    expect(within(panel).getByText("No question resolved yet")).toBeInTheDocument();
    expect(figure(panel, "Median answer")).toBe("—");
    expect(figure(panel, "Pending now")).toBe("1");
    expect(figure(panel, "Longest wait")).not.toBe("—");
  });
});
