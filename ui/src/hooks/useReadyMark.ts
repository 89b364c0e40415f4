import { useLayoutEffect } from "react";
import { afterNextPaint } from "./useAfterFirstFrame";

/** The User Timing mark set once the window has painted its first full view. */
export const READY_MARK = "beckon:ready";
/** Marks of start-up's stages before it: the snapshot received, and its view in the DOM. */
export const SNAPSHOT_MARK = "beckon:snapshot";
export const RENDERED_MARK = "beckon:rendered";

/** Sets `name` unless this page already has it, so start-up's stages are timed once. */
export function markOnce(name: string): void {
  if (performance.getEntriesByName(name).length === 0) performance.mark(name);
}

/**
 * Marks (once per page) the first frame painted after start-up loaded everything, so start-up
 * time can be measured from outside (`performance.getEntriesByName(READY_MARK)`), and the
 * moment that view was in the DOM, before style, layout and paint. Both are taken from the
 * commit that put the view in the DOM: the frame asked for there is the one that paints it,
 * whatever the effects run after the commit go on to do.
 */
export function useReadyMark(ready: boolean): void {
  useLayoutEffect(() => {
    if (!ready || performance.getEntriesByName(READY_MARK).length > 0) return;
    markOnce(RENDERED_MARK);
    return afterNextPaint(() => markOnce(READY_MARK));
  }, [ready]);
}
