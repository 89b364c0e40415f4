import { useEffect, useRef, useState } from "react";
import type { QuestionStatus } from "../bindings/QuestionStatus";
import { questionStatusLabel } from "../format/labels";
import { useAppSelector } from "../state/store";
import { inboxRows, type TriageRow } from "../state/triage";

/**
 * What a screen reader should hear about the inbox as it changes, once per change: "New question
 * from deploy-bot: …" when questions arrive, and the outcome ("Answered: …") when one the window
 * shows is resolved. The questions there at the start are not announced, nor anything else (a
 * streamed reply, a count).
 */
export function announcement(before: ReadonlyMap<string, QuestionStatus>, rows: readonly TriageRow[]): string | null {
  const arrived = rows.filter((row) => !before.has(row.id) && row.question.status === "pending");
  const resolved = rows.filter((row) => before.get(row.id) === "pending" && row.question.status !== "pending");
  const parts: string[] = [];
  const [first] = arrived;
  if (first) parts.push(arrived.length === 1 ? `New question from ${first.agent}: ${first.summary}` : `${arrived.length} new questions`);
  for (const row of resolved) parts.push(`${questionStatusLabel(row.question.status)}: ${row.summary}`);
  return parts.length > 0 ? parts.map((part) => (/[.?!]$/.test(part) ? part : `${part}.`)).join(" ") : null;
}

/** The latest announcement for the window's live region (see `announcement`): none for the rows there at first. */
export function useAnnouncements(): string {
  const rows = useAppSelector(inboxRows);
  const known = useRef<Map<string, QuestionStatus> | null>(null);
  const [message, setMessage] = useState("");
  useEffect(() => {
    const before = known.current;
    known.current = new Map(rows.map((row) => [row.id, row.question.status]));
    if (before === null) return;
    const said = announcement(before, rows);
    if (said !== null) setMessage(said);
  }, [rows]);
  return message;
}
