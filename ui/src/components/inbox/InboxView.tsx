import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent, type MouseEvent } from "react";
import type { BatchDecision } from "../../api/triage";
import type { RequestId } from "../../bindings/RequestId";
import type { SessionId } from "../../bindings/SessionId";
import { useNow } from "../../hooks/now";
import { useAfterFirstFrame } from "../../hooks/useAfterFirstFrame";
import { useActions, useAppSelector, useBackendHandles } from "../../state/store";
import {
  count,
  facets,
  filterRows,
  groupRows,
  inboxRows,
  isFiltered,
  keyMayAct,
  listEntries,
  moveFocus,
  NO_FILTER,
  rangeBetween,
  summarise,
  type GroupBy,
  type ListEntry,
  type TriageFilter,
  type TriageGroup,
  type TriageRow,
} from "../../state/triage";
import { approvalAnswer } from "../question/approval";
import { isChoice } from "../question/items";
import { Icon } from "../common/Icon";
import { usePhoneLayout } from "../common/usePhoneLayout";
import { ConnectedQuestionCard } from "../question/ConnectedQuestionCard";
import { BatchBar, BatchConfirm, BatchResult, type BatchKind, type BatchOutcome } from "./BatchBar";
import { GroupHeader, InboxRow, rowDomId } from "./InboxRow";
import { InboxToolbar } from "./InboxToolbar";
import { enterCard, isTextField, pickOption } from "./inboxKeys";
import { DenyPrompt, KeyHelp } from "./Overlays";
import { RuleOfferBanner } from "./RuleOfferBanner";
import { rowOnScreen, scrollRowIntoView, VirtualList } from "./VirtualList";

/** The rows among lines `start` to `end` of `entries`, in runs by group (a group's rows are consecutive). */
function rowRuns(entries: readonly ListEntry[], start: number, end: number): { group: TriageGroup; lines: { row: TriageRow; line: number }[] }[] {
  const runs: { group: TriageGroup; lines: { row: TriageRow; line: number }[] }[] = [];
  for (let line = start; line < end; line += 1) {
    const entry = entries[line];
    if (entry?.type !== "row") continue;
    const last = runs[runs.length - 1];
    if (last?.group.key === entry.group.key) last.lines.push({ row: entry.row, line });
    else runs.push({ group: entry.group, lines: [{ row: entry.row, line }] });
  }
  return runs;
}

/** Every line of the list (row or group header) is this tall, so the list can be windowed. */
export const LINE_PX = 52;
const GROUP_BY_KEY = "beckon.inbox.groupBy";

function storedGroupBy(): GroupBy {
  try {
    const stored = window.localStorage.getItem(GROUP_BY_KEY);
    return stored === "agent" || stored === "none" || stored === "project" ? stored : "project";
  } catch {
    return "project";
  }
}

type Overlay = { kind: "keys" } | { kind: "deny"; id: RequestId; what: string } | { kind: "batch"; decision: BatchKind } | null;

/**
 * Every pending question across sessions as a compact list — grouped, filtered, searched, drawn
 * only where it is on screen — beside the focused question's card, answerable in place. Keys
 * (j/k, a, d, s, x, 1–4) act only from the list, on a row that is on screen and whose card is
 * shown; several rows can be answered at once after a confirmation. In the phone layout the list
 * and the card take turns: a row opens its card, "Back to the list" returns.
 */
export function InboxView({
  onOpenSession,
  highlightId,
  focusList = false,
  onListFocused,
}: {
  onOpenSession: (id: SessionId) => void;
  highlightId?: RequestId;
  /** Put focus on the list (the skip link asks), then say so through `onListFocused`. */
  focusList?: boolean;
  onListFocused?: () => void;
}) {
  const { dispatch } = useBackendHandles();
  const actions = useActions();
  const now = useNow();
  const rows = useAppSelector(inboxRows);
  // Rules are made in the desktop app; a team server's page offers none.
  const inBrowser = useAppSelector((state) => state.person !== null);
  const [groupBy, setGroupByState] = useState<GroupBy>(storedGroupBy);
  const [filter, setFilter] = useState<TriageFilter>(NO_FILTER);
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(() => new Set());
  const [focusedId, setFocusedId] = useState<RequestId | null>(highlightId ?? null);
  const [selected, setSelected] = useState<ReadonlySet<RequestId>>(() => new Set());
  const [anchor, setAnchor] = useState<RequestId | null>(null);
  const [overlay, setOverlay] = useState<Overlay>(null);
  const [outcome, setOutcome] = useState<BatchOutcome | null>(null);
  const phone = usePhoneLayout();
  // Whether, in the phone layout, the card is shown instead of the list (a link opens it there).
  const [cardOpen, setCardOpen] = useState(highlightId !== undefined);
  const showsCard = phone && cardOpen;
  const backRef = useRef<HTMLButtonElement | null>(null);
  const scrollerRef = useRef<HTMLDivElement | null>(null);
  const listRef = useRef<HTMLDivElement | null>(null);
  const detailRef = useRef<HTMLDivElement | null>(null);
  const searchRef = useRef<HTMLInputElement | null>(null);
  const headingRef = useRef<HTMLHeadingElement | null>(null);
  // The focused question's card (Markdown, forms) is drawn a frame after the list, so the
  // list is on screen sooner.
  const listPainted = useAfterFirstFrame();
  // Answered cards stay on screen, read-only, until the inbox is left.
  useEffect(() => () => dispatch({ type: "inbox_left" }), [dispatch]);

  const setGroupBy = (by: GroupBy) => {
    setGroupByState(by);
    try {
      window.localStorage.setItem(GROUP_BY_KEY, by);
    } catch {
      // Without storage the choice lasts until the window closes.
    }
  };

  // The age filter needs the time; the minute is enough, and no filter needs it at all.
  const ageNow = filter.age === "any" ? 0 : Math.floor(now / 60_000) * 60_000;
  const shown = useMemo(() => filterRows(rows, filter, ageNow), [rows, filter, ageNow]);
  const groups = useMemo(() => groupRows(shown, groupBy), [shown, groupBy]);
  const entries = useMemo(() => listEntries(groups, groupBy, collapsed), [groups, groupBy, collapsed]);
  const { order, lineOf } = useMemo(() => {
    const ids: RequestId[] = [];
    const lines = new Map<RequestId, number>();
    entries.forEach((entry, line) => {
      if (entry.type === "row") {
        ids.push(entry.row.id);
        lines.set(entry.row.id, line);
      }
    });
    return { order: ids, lineOf: lines };
  }, [entries]);
  const { agents, projects } = useMemo(() => facets(rows), [rows]);
  const waiting = useMemo(() => rows.reduce((n, row) => n + (row.question.status === "pending" ? 1 : 0), 0), [rows]);

  const current = focusedId !== null && lineOf.has(focusedId) ? focusedId : (order[0] ?? null);
  const currentRow = useMemo(() => (current === null ? null : (shown.find((row) => row.id === current) ?? null)), [shown, current]);
  const picked = useMemo(() => shown.filter((row) => selected.has(row.id) && row.question.status === "pending"), [shown, selected]);
  const summary = useMemo(() => summarise(picked), [picked]);

  // A link to a question focuses its row, showing it even if filters or a closed group hid it.
  const [linked, setLinked] = useState(highlightId);
  if (linked !== highlightId) {
    setLinked(highlightId);
    if (highlightId) {
      setFocusedId(highlightId);
      setFilter(NO_FILTER);
      setCollapsed(new Set());
      setCardOpen(true);
    }
  }

  // When the list and the card take turns, focus goes to the one now shown (not on opening).
  const shownBefore = useRef(showsCard);
  useEffect(() => {
    if (shownBefore.current === showsCard) return;
    shownBefore.current = showsCard;
    if (showsCard) backRef.current?.focus();
    else listRef.current?.focus({ preventScroll: true });
  }, [showsCard]);

  useEffect(() => {
    if (!focusList) return;
    (listRef.current ?? headingRef.current)?.focus();
    onListFocused?.();
  }, [focusList, onListFocused]);

  const reveal = useCallback(
    (id: RequestId | null) => {
      const line = id === null ? undefined : lineOf.get(id);
      if (line !== undefined && scrollerRef.current) scrollRowIntoView(scrollerRef.current, line, LINE_PX);
    },
    [lineOf],
  );
  // Keep the focused row on screen when it changes (not when the list merely updates).
  const revealed = useRef<RequestId | null>(null);
  useEffect(() => {
    if (current === null || revealed.current === current) return;
    revealed.current = current;
    reveal(current);
  }, [current, reveal]);

  const focusRow = (id: RequestId | null) => {
    if (id !== null) setFocusedId(id);
  };

  const toggle = (id: RequestId) =>
    setSelected((old) => {
      const next = new Set(old);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const addAll = (ids: readonly RequestId[]) =>
    setSelected((old) => {
      const next = new Set(old);
      for (const id of ids) next.add(id);
      return next;
    });

  const onRowClick = (row: TriageRow, event: MouseEvent, fromBox: boolean) => {
    event.stopPropagation();
    listRef.current?.focus({ preventScroll: true });
    if (event.shiftKey) addAll(rangeBetween(order, anchor ?? current, row.id));
    else {
      if (fromBox || event.ctrlKey || event.metaKey) toggle(row.id);
      else setCardOpen(true);
      setAnchor(row.id);
    }
    setFocusedId(row.id);
  };

  const advance = (from: RequestId) => focusRow(moveFocus(order, from, 1));

  const allow = async (row: TriageRow) => {
    const result = await actions.answer(row.id, [approvalAnswer({ kind: "allow", always: false, edited: null })]);
    if (result.ok) advance(row.id);
  };
  const deny = async (id: RequestId, message: string) => {
    setOverlay(null);
    listRef.current?.focus({ preventScroll: true });
    const result = await actions.answer(id, [approvalAnswer({ kind: "deny", message })]);
    if (result.ok) advance(id);
  };
  const skip = async (row: TriageRow) => {
    const result = await actions.decline(row.id);
    if (result.ok) advance(row.id);
  };

  const runBatch = async (decision: BatchDecision) => {
    setOverlay(null);
    const ids = picked.map((row) => row.id);
    const result = await actions.answerBatch(ids, decision);
    listRef.current?.focus({ preventScroll: true });
    if (!result.ok) {
      setOutcome({ resolved: 0, failed: [], error: result.error.message });
      return;
    }
    const what = new Map(picked.map((row) => [row.id, row.summary]));
    setOutcome({
      resolved: result.receipt.resolved.length,
      failed: result.receipt.failed.map((failure) => ({ what: what.get(failure.request_id) ?? failure.request_id, message: failure.error.message })),
      error: null,
    });
    const done = new Set(result.receipt.resolved.map((question) => question.id));
    setSelected((old) => new Set([...old].filter((id) => !done.has(id))));
  };
  const chooseBatch = (kind: BatchKind) => {
    if (summary.approvals > 0) setOverlay({ kind: "batch", decision: kind });
    else void runBatch(kind === "deny" ? { decision: "deny", message: null } : kind === "decline" ? { decision: "decline", reason: null } : { decision: "allow_once" });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    if (event.altKey || event.ctrlKey || event.metaKey || event.nativeEvent.isComposing) return;
    const target = event.target;
    const inText = isTextField(target);
    const inDetail = target instanceof Node && (detailRef.current?.contains(target) ?? false);
    if (event.key === "Escape") {
      if (inText && target instanceof HTMLElement) target.blur();
      return;
    }
    // The open card answers its own keys; text fields keep theirs.
    if (inText || inDetail || overlay !== null) return;
    switch (event.key) {
      case "/":
        event.preventDefault();
        searchRef.current?.focus();
        return;
      case "?":
        event.preventDefault();
        setOverlay({ kind: "keys" });
        return;
      case "j":
      case "ArrowDown":
        event.preventDefault();
        focusRow(moveFocus(order, current, 1));
        revealed.current = null;
        return;
      case "k":
      case "ArrowUp":
        event.preventDefault();
        focusRow(moveFocus(order, current, -1));
        revealed.current = null;
        return;
    }
    // Answering keys come only from the list itself (or a row's box), never from a button.
    const inList = target instanceof Node && (listRef.current?.contains(target) ?? false) && !(target instanceof HTMLButtonElement);
    if (!inList) return;
    const line = current === null ? undefined : lineOf.get(current);
    const cardId = detailRef.current?.querySelector<HTMLElement>("[data-request-id]")?.dataset.requestId ?? null;
    const mayAct = keyMayAct({
      inInbox: inList,
      inTextField: inText,
      focusedId: current,
      focusedVisible: line !== undefined && scrollerRef.current !== null && rowOnScreen(scrollerRef.current, line, LINE_PX),
      // A card behind the list (the phone layout) is not shown: keys must not answer it unseen.
      detailId: phone && !cardOpen ? null : cardId,
    });
    if (event.key === "Enter" && phone && !cardOpen && currentRow) {
      // The list fills the phone layout: Enter opens the row's card, as a tap does.
      event.preventDefault();
      setCardOpen(true);
      return;
    }
    if (!mayAct || !currentRow || !detailRef.current) return;
    const row = currentRow;
    const pending = row.question.status === "pending";
    const first = row.question.request?.questions[0];
    if (event.key === "Enter") {
      event.preventDefault();
      enterCard(detailRef.current);
    } else if (/^[1-4]$/.test(event.key) && pending && first && isChoice(first) && !first.multiSelect) {
      event.preventDefault();
      pickOption(detailRef.current, Number(event.key) - 1, first.options.map((option) => option.label));
    } else if (event.key === "a" && pending && row.kind === "approval") {
      event.preventDefault();
      void allow(row);
    } else if (event.key === "d" && pending && row.kind === "approval") {
      event.preventDefault();
      setOverlay({ kind: "deny", id: row.id, what: row.summary });
    } else if (event.key === "s" && pending) {
      event.preventDefault();
      void skip(row);
    } else if (event.key === "x") {
      event.preventDefault();
      toggle(row.id);
      setAnchor(row.id);
    }
  };

  const filtered = isFiltered(filter);
  return (
    <section className="view inbox-view" aria-labelledby="inbox-title" onKeyDown={onKeyDown}>
      <header className="view-head">
        <div>
          <h1 id="inbox-title" ref={headingRef} tabIndex={-1}>
            Inbox
          </h1>
          <p className="view-sub">
            {waiting === 0 ? "Nothing is waiting for you" : waiting === 1 ? "1 question is waiting" : `${count(waiting)} questions are waiting`}
          </p>
        </div>
        <button type="button" className="button button-quiet inbox-keys-button" onClick={() => setOverlay({ kind: "keys" })} title="Keyboard shortcuts (?)">
          <kbd>?</kbd> Keys
        </button>
      </header>
      {inBrowser ? null : <RuleOfferBanner />}
      {rows.length === 0 ? (
        <div className="view-body">
          <div className="empty">
            <Icon name="inbox" size={40} />
            <p className="empty-title">All caught up</p>
            <p className="muted">When an agent needs a decision, its question shows up here.</p>
          </div>
        </div>
      ) : (
        <div className={`inbox-body${showsCard ? " shows-card" : ""}`}>
          <div className="inbox-side">
            <InboxToolbar filter={filter} onFilter={setFilter} groupBy={groupBy} onGroupBy={setGroupBy} agents={agents} projects={projects} searchRef={searchRef} />
            <p className="inbox-count" aria-live="polite">
              {filtered ? `${count(shown.length)} of ${count(rows.length)}` : `${count(rows.length)} ${rows.length === 1 ? "question" : "questions"}`}
              {filtered ? (
                <button type="button" className="link-button" onClick={() => setFilter(NO_FILTER)}>
                  Clear filters
                </button>
              ) : null}
            </p>
            {summary.count > 0 ? <BatchBar summary={summary} onChoose={chooseBatch} onClear={() => setSelected(new Set())} /> : null}
            {outcome ? <BatchResult outcome={outcome} onClose={() => setOutcome(null)} /> : null}
            <div className="inbox-scroller" ref={scrollerRef}>
              <VirtualList
                scroller={scrollerRef}
                count={entries.length}
                rowHeight={LINE_PX}
                render={(start, end) => (
                  <>
                    {/* The listbox holds only options (in groups); the group headers, which are
                        buttons, lie beside it in the same scrolling space. */}
                    <div
                      ref={listRef}
                      className="inbox-list"
                      role="listbox"
                      aria-label="Pending questions"
                      aria-multiselectable="true"
                      aria-activedescendant={current === null ? undefined : rowDomId(current)}
                      tabIndex={0}
                    >
                      {rowRuns(entries, start, end).map((run) => {
                        const drawn = run.lines.map(({ row, line }) => (
                          <InboxRow
                            key={row.id}
                            row={row}
                            top={line * LINE_PX}
                            height={LINE_PX}
                            focused={row.id === current}
                            selected={selected.has(row.id)}
                            now={now}
                            onClick={(event) => onRowClick(row, event, false)}
                            onToggle={(event) => onRowClick(row, event, true)}
                          />
                        ));
                        return groupBy === "none" ? (
                          drawn
                        ) : (
                          <div key={`run:${run.group.key}`} role="group" aria-label={run.group.label}>
                            {drawn}
                          </div>
                        );
                      })}
                    </div>
                    {entries.slice(start, end).map((entry, offset) => {
                      if (entry.type !== "header") return null;
                      const key = entry.group.key;
                      return (
                        <GroupHeader
                          key={`group:${key}`}
                          group={entry.group}
                          collapsed={entry.collapsed}
                          top={(start + offset) * LINE_PX}
                          height={LINE_PX}
                          onToggleCollapsed={() =>
                            setCollapsed((old) => {
                              const next = new Set(old);
                              if (next.has(key)) next.delete(key);
                              else next.add(key);
                              return next;
                            })
                          }
                          onSelectAll={() => addAll(entry.group.rows.filter((row) => row.question.status === "pending").map((row) => row.id))}
                        />
                      );
                    })}
                  </>
                )}
              />
              {shown.length === 0 ? <p className="muted inbox-none">No question matches.</p> : null}
            </div>
          </div>
          <div className="inbox-detail" ref={detailRef}>
            {phone ? (
              <button ref={backRef} type="button" className="button button-quiet inbox-back" onClick={() => setCardOpen(false)}>
                <Icon name="chevron" size={15} className="chevron-back" />
                Back to the list
              </button>
            ) : null}
            {!currentRow ? (
              <p className="muted">Pick a question on the left.</p>
            ) : listPainted ? (
              <ConnectedQuestionCard
                key={currentRow.id}
                question={currentRow.question}
                highlighted={currentRow.id === highlightId}
                onOpenSession={() => onOpenSession(currentRow.question.session_id)}
              />
            ) : null}
          </div>
        </div>
      )}
      {overlay?.kind === "keys" ? (
        <KeyHelp
          onClose={() => {
            setOverlay(null);
            listRef.current?.focus({ preventScroll: true });
          }}
        />
      ) : null}
      {overlay?.kind === "deny" ? (
        <DenyPrompt
          what={overlay.what}
          onDeny={(message) => void deny(overlay.id, message)}
          onClose={() => {
            setOverlay(null);
            listRef.current?.focus({ preventScroll: true });
          }}
        />
      ) : null}
      {overlay?.kind === "batch" ? <BatchConfirm kind={overlay.decision} summary={summary} onConfirm={(decision) => void runBatch(decision)} onClose={() => setOverlay(null)} /> : null}
    </section>
  );
}
