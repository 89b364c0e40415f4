import { useEffect } from "react";
import type { RequestId } from "../bindings/RequestId";
import { afterNextPaint } from "./useAfterFirstFrame";

/** The User Timing mark set each time a question the window was sent to has its card painted. */
export const QUESTION_SHOWN_MARK = "beckon:question-shown";

/** A question the window was sent to (by a notification, the tray or a link); a new object for each time. */
export interface QuestionSentTo {
  id: RequestId;
}

/** Question `id`'s card in `root`: the card itself, not a placeholder or its loading line. */
function cardOf(root: ParentNode, id: RequestId): HTMLElement | null {
  for (const card of root.querySelectorAll<HTMLElement>("article[data-request-id]")) {
    if (card.dataset.requestId === id) return card;
  }
  return null;
}

/**
 * Sets `beckon:question-shown` (its detail: `{ question: id }`) once the card of the question the
 * window was last sent to is in the DOM and a frame with it has been painted, so the time from a
 * click on a notification to that card on screen can be measured from outside. Each sending is
 * marked once; `null` (or the person going elsewhere first) waits for nothing.
 */
export function useQuestionShownMark(sentTo: QuestionSentTo | null): void {
  useEffect(() => {
    if (sentTo === null) return;
    let cancelPaint: (() => void) | null = null;
    // The card comes when its view, its session or the question itself has loaded: watch for it.
    const observer = new MutationObserver(() => check());
    const check = () => {
      if (cancelPaint !== null || cardOf(document, sentTo.id) === null) return;
      observer.disconnect();
      cancelPaint = afterNextPaint(() => performance.mark(QUESTION_SHOWN_MARK, { detail: { question: sentTo.id } }));
    };
    observer.observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ["data-request-id"] });
    check();
    return () => {
      observer.disconnect();
      cancelPaint?.();
    };
  }, [sentTo]);
}
