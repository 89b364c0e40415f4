import { useState, type KeyboardEvent, type RefObject } from "react";
import type { Answer } from "../../bindings/Answer";
import type { ErrorBody } from "../../bindings/ErrorBody";
import type { QuestionItem } from "../../bindings/QuestionItem";
import type { SubmitResult } from "../../state/types";
import { Spinner } from "../common/Spinner";
import { ChoiceField } from "./ChoiceField";
import { buildAnswers, emptyDraft, pickOption, type ItemDraft, type LocalProblems } from "./draft";
import { FreeFormField } from "./FreeFormField";
import { isChoice } from "./items";
import { placeProblems, type PlacedProblems } from "./problems";

export type { SubmitResult };

const NO_PROBLEMS: PlacedProblems = { items: {}, general: [] };

function isTextEntry(target: EventTarget | null): boolean {
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (!(target instanceof HTMLInputElement)) return false;
  return !["radio", "checkbox", "button", "submit"].includes(target.type);
}

function activatesItself(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLButtonElement ||
    target instanceof HTMLSelectElement ||
    target instanceof HTMLAnchorElement ||
    (target instanceof HTMLElement && target.getAttribute("role") === "switch")
  );
}

function placeBackendProblems(error: ErrorBody, itemCount: number): PlacedProblems {
  const problems = error.problems?.length ? error.problems : error.field ? [{ path: error.field, message: error.message }] : [];
  const placed = placeProblems(problems, itemCount);
  const anyPlaced = Object.keys(placed.items).length > 0 || placed.general.length > 0;
  return anyPlaced ? placed : { items: {}, general: [error.message] };
}

/**
 * The answering form of a pending question. Keys: 1–9 pick options of the item holding focus
 * (or the first choice item), toggling in multi-select; Enter submits, Shift+Enter makes a new
 * line in a text area.
 */
export function QuestionForm({
  items,
  label,
  cardRef,
  onAnswer,
  onDecline,
}: {
  items: readonly QuestionItem[];
  label: string;
  cardRef: RefObject<HTMLElement | null>;
  onAnswer: (answers: Answer[]) => Promise<SubmitResult>;
  onDecline: () => Promise<SubmitResult>;
}) {
  const [drafts, setDrafts] = useState<ItemDraft[]>(() => items.map(emptyDraft));
  const [local, setLocal] = useState<LocalProblems>({});
  const [backend, setBackend] = useState<PlacedProblems>(NO_PROBLEMS);
  const [busy, setBusy] = useState<"answer" | "decline" | null>(null);

  const update = (index: number, draft: ItemDraft) => {
    setDrafts((current) => current.map((old, position) => (position === index ? draft : old)));
    setLocal((current) => {
      if (!(index in current)) return current;
      const rest = { ...current };
      delete rest[index];
      return rest;
    });
    setBackend((current) => {
      if (!(index in current.items)) return current;
      const rest = { ...current.items };
      delete rest[index];
      return { ...current, items: rest };
    });
  };

  const settle = (result: SubmitResult) => {
    setBusy(null);
    if (result.ok || result.error.kind === "already_resolved") return;
    setBackend(result.error.kind === "invalid_answer" ? placeBackendProblems(result.error, items.length) : { items: {}, general: [result.error.message] });
  };

  const submit = async () => {
    if (busy) return;
    const built = buildAnswers(items, drafts);
    if ("problems" in built) {
      setLocal(built.problems);
      return;
    }
    setLocal({});
    setBackend(NO_PROBLEMS);
    setBusy("answer");
    settle(await onAnswer(built.answers));
  };

  const skip = async () => {
    if (busy) return;
    setBusy("decline");
    settle(await onDecline());
  };

  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    if (event.altKey || event.ctrlKey || event.metaKey || event.nativeEvent.isComposing) return;
    if (event.key === "Enter" && !event.shiftKey) {
      if (activatesItself(event.target)) return;
      event.preventDefault();
      void submit();
      return;
    }
    if (!/^[1-9]$/.test(event.key) || isTextEntry(event.target) || busy) return;
    const holder = event.target instanceof Element ? event.target.closest<HTMLElement>("[data-item-index]") : null;
    const heldIndex = holder ? Number(holder.dataset.itemIndex) : -1;
    const index = heldIndex >= 0 && isChoice(items[heldIndex] as QuestionItem) ? heldIndex : items.findIndex(isChoice);
    const item = items[index];
    const draft = drafts[index];
    if (!item || !isChoice(item) || draft?.kind !== "choice") return;
    const position = Number(event.key) - 1;
    if (position > item.options.length) return;
    event.preventDefault();
    const labels = item.options.map((option) => option.label);
    const next = pickOption(draft, labels, position, item.multiSelect);
    update(index, next);
    if (position === labels.length && next.otherOn) {
      const other = cardRef.current?.querySelector<HTMLInputElement>(`[data-item-index="${index}"] [data-other-input]`);
      other?.focus();
    }
  };

  const choiceCount = items.find(isChoice)?.options.length;
  const general = backend.general;
  return (
    <form
      className="qform"
      noValidate
      tabIndex={-1}
      data-question-focus="true"
      aria-label={label}
      onKeyDown={onKeyDown}
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
      aria-busy={busy !== null}
    >
      {items.map((item, index) => {
        const draft = drafts[index] ?? emptyDraft(item);
        const errors = { ...backend.items[index] };
        const localProblem = local[index];
        if (localProblem) errors.item = [...(errors.item ?? []), localProblem];
        return isChoice(item) && draft.kind === "choice" ? (
          <ChoiceField key={index} item={item} index={index} draft={draft} errors={errors} disabled={busy !== null} onChange={(next) => update(index, next)} />
        ) : !isChoice(item) && draft.kind === "free" ? (
          <FreeFormField key={index} item={item} index={index} draft={draft} errors={errors} disabled={busy !== null} onChange={(next) => update(index, next)} />
        ) : null;
      })}
      {general.length > 0 ? (
        <div className="form-error" role="alert">
          {general.map((message, index) => (
            <p key={index}>{message}</p>
          ))}
        </div>
      ) : null}
      <div className="qactions">
        <p className="key-hint" aria-hidden="true">
          {choiceCount ? (
            <>
              <kbd>1</kbd>–<kbd>{Math.min(choiceCount + 1, 9)}</kbd> choose ·{" "}
            </>
          ) : null}
          <kbd>Enter</kbd> submit
        </p>
        <button type="button" className="button button-quiet" onClick={() => void skip()} disabled={busy !== null}>
          {busy === "decline" ? <Spinner /> : null}
          Skip
        </button>
        <button type="submit" className="button button-primary" disabled={busy !== null}>
          {busy === "answer" ? <Spinner /> : null}
          Submit
        </button>
      </div>
    </form>
  );
}
