import type { TimelineEntry } from "../bindings/TimelineEntry";

/**
 * Merges timeline entries by position: the result is ascending with one entry per position.
 * Returns `current` itself when nothing changes, so an event already in a snapshot is a no-op.
 */
export function mergeEntries(current: readonly TimelineEntry[], incoming: readonly TimelineEntry[]): TimelineEntry[] {
  const known = new Set(current.map((entry) => entry.position));
  const fresh = incoming.filter((entry) => !known.has(entry.position));
  if (fresh.length === 0) return current as TimelineEntry[];
  const merged = [...current];
  for (const entry of fresh) {
    known.add(entry.position);
    merged.push(entry);
  }
  return merged.sort((a, b) => a.position - b.position);
}
