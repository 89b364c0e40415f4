import { useEffect } from "react";

/** The User Timing mark set once the window has painted its first full view. */
export const READY_MARK = "beckon:ready";

/**
 * Marks (once per page) the first frame painted after start-up loaded everything, so start-up
 * time can be measured from outside (`performance.getEntriesByName(READY_MARK)`).
 */
export function useReadyMark(ready: boolean): void {
  useEffect(() => {
    if (!ready || performance.getEntriesByName(READY_MARK).length > 0) return;
    // The callback runs before the next paint; the task after it runs once that frame is out.
    const frame = requestAnimationFrame(() => {
      setTimeout(() => {
        if (performance.getEntriesByName(READY_MARK).length === 0) performance.mark(READY_MARK);
      }, 0);
    });
    return () => cancelAnimationFrame(frame);
  }, [ready]);
}
