import { useEffect, type RefObject } from "react";

function cardById(root: HTMLElement, id: string | null): HTMLElement | null {
  if (!id) return null;
  return [...root.querySelectorAll<HTMLElement>("[data-request-id]")].find((card) => card.dataset.requestId === id) ?? null;
}

function userIsTypingElsewhere(container: HTMLElement): boolean {
  const active = document.activeElement;
  if (!active || active === document.body || container.contains(active)) return false;
  return active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement || active instanceof HTMLSelectElement;
}

/**
 * Gives focus to a question when a view opens or its first pending question changes: the one
 * navigated to (`targetId`) if it is on screen, else the first pending card. Focus never moves
 * out of a field the person is typing in.
 */
export function useQuestionFocus(container: RefObject<HTMLElement | null>, firstPendingId: string | null, targetId: string | null): void {
  useEffect(() => {
    const root = container.current;
    if (!root || userIsTypingElsewhere(root)) return;
    if (root.contains(document.activeElement) && document.activeElement !== root) return;
    const target = cardById(root, targetId);
    const card = target ?? cardById(root, firstPendingId);
    if (!card) return;
    const focusable = card.querySelector<HTMLElement>("[data-question-focus]");
    // A card taller than the view shows its top (who asks, the question) first.
    const tall = card.offsetHeight > root.clientHeight;
    card.scrollIntoView?.({ block: tall ? "start" : target ? "center" : "nearest" });
    focusable?.focus({ preventScroll: true });
  }, [container, firstPendingId, targetId]);
}
