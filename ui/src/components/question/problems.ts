import type { Problem } from "../../bindings/Problem";

/** The part of an item a backend problem names. */
export type ItemPart = "item" | "selected" | "other" | "value" | "comment";

/** Backend problems placed beside the fields they name. */
export interface PlacedProblems {
  /** By item index, then by part. */
  items: Record<number, Partial<Record<ItemPart, string[]>>>;
  /** Problems that name no item (or an item that does not exist). */
  general: string[];
}

const PATH = /^answers\[(\d+)\](?:\.(selected|other|value|comment))?/;

/** Maps paths like `answers[0].selected[1]` or `answers[1].value` to item 1's value, and so on. */
export function placeProblems(problems: readonly Problem[], itemCount: number): PlacedProblems {
  const placed: PlacedProblems = { items: {}, general: [] };
  for (const problem of problems) {
    const match = PATH.exec(problem.path);
    const index = match ? Number(match[1]) : -1;
    if (!match || index >= itemCount) {
      placed.general.push(problem.message);
      continue;
    }
    const part = (match[2] as ItemPart | undefined) ?? "item";
    const item = (placed.items[index] ??= {});
    (item[part] ??= []).push(problem.message);
  }
  return placed;
}
