import { useEffect, type RefObject } from "react";

function cardById(root: HTMLElement, id: string | null): HTMLElement | null {
  if (!id) return null;
  return [...root.querySelectorAll<HTMLElement>("[data-request-id]")].find((card) => card.dataset.requestId === id) ?? null;
}

/**
 * Brings a question into view when a view opens or its first pending question changes: the one
 * navigated to (`targetId`) if it is on screen, else the first pending card.
 *
 * It never moves keyboard focus. A `beckon://` link can come from any web page and raises the
 * window; if it also put focus into a form, whatever the person was typing at that moment (a
 * digit, Enter) would pick an option and submit it. The number keys and Enter answer only once
 * the person has clicked or tabbed into the card.
 */
export function useQuestionReveal(container: RefObject<HTMLElement | null>, firstPendingId: string | null, targetId: string | null): void {
  useEffect(() => {
    const root = container.current;
    if (!root) return;
    const target = cardById(root, targetId);
    const card = target ?? cardById(root, firstPendingId);
    if (!card) return;
    // A card taller than the view shows its top (who asks, the question) first.
    const tall = card.offsetHeight > root.clientHeight;
    card.scrollIntoView?.({ block: tall ? "start" : target ? "center" : "nearest" });
  }, [container, firstPendingId, targetId]);
}
