import { useEffect } from "react";
import { useActions, useAppSelector } from "../state/store";

const SETTLE_MS = 1_500;
const EVERY_MS = 60_000;

/** Refreshes the figures shortly after questions are asked or resolved, and once a minute. */
export function useMetricsRefresh(enabled: boolean): void {
  const questionEpoch = useAppSelector((state) => state.questionEpoch);
  const { refreshMetrics } = useActions();
  useEffect(() => {
    if (!enabled || questionEpoch === 0) return;
    const timer = window.setTimeout(() => void refreshMetrics(), SETTLE_MS);
    return () => window.clearTimeout(timer);
  }, [enabled, questionEpoch, refreshMetrics]);
  useEffect(() => {
    if (!enabled) return;
    const timer = window.setInterval(() => void refreshMetrics(), EVERY_MS);
    return () => window.clearInterval(timer);
  }, [enabled, refreshMetrics]);
}
