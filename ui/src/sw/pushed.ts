import type { AnswerQuestion } from "../bindings/AnswerQuestion";
import type { AnswerReceipt } from "../bindings/AnswerReceipt";
import type { ErrorBody } from "../bindings/ErrorBody";
import type { PushMessage } from "../bindings/PushMessage";

/**
 * What the service worker shows for a push, and what a press on its notification sends: kept
 * apart from the worker's events so each rule is tested on its own. The server decides what a
 * notification offers (Allow only when the whole command is shown, as on the desktop); this
 * shows exactly that.
 */

/** A notification to show: its title and options (tag, body, buttons, what a press needs). */
export interface Shown {
  title: string;
  options: {
    body: string;
    tag: string;
    data: PushMessage;
    actions: { action: string; title: string }[];
    requireInteraction?: boolean;
  };
}

/** The notification for a push's message. */
export function notificationOf(message: PushMessage): Shown {
  switch (message.kind) {
    case "question":
      return {
        title: message.title,
        options: {
          body: message.body,
          // One per question: a push sent again replaces its notification, never adds one.
          tag: message.request_id,
          data: message,
          actions: message.actions.map(({ action, title }) => ({ action, title })),
          requireInteraction: true,
        },
      };
    case "waiting":
      return { title: message.title, options: { body: message.body, tag: message.tag, data: message, actions: [] } };
  }
}

/** Where a tap on the notification opens the window: the question, or the inbox for a count. */
export function pageFor(message: PushMessage): string {
  return message.kind === "question" ? `./#/question/${encodeURIComponent(message.request_id)}` : "./#/inbox";
}

/** The window command's arguments a press of button `action` (`answer:<index>`) sends, if it answers. */
export function answerFor(message: PushMessage, action: string): AnswerQuestion | null {
  if (message.kind !== "question") return null;
  const pressed = message.actions.find((offered) => offered.action === action);
  if (!pressed) return null;
  return { requestId: message.request_id, answers: [{ selected: [pressed.label] }], via: "notification" };
}

/** What replaces the notification once the press was answered: how the question ended. */
export function outcomeOf(message: PushMessage, label: string, result: { receipt: AnswerReceipt } | { error: ErrorBody }): Shown {
  const tag = message.kind === "question" ? message.request_id : message.tag;
  const base = { tag, data: message, actions: [] };
  if ("receipt" in result) {
    const title = label === "Allow" ? "Allowed" : label === "Deny" ? "Denied" : `Answered: ${label}`;
    return { title, options: { ...base, body: message.title } };
  }
  const { error } = result;
  if (error.kind === "already_resolved") {
    return { title: "Already answered", options: { ...base, body: `${message.title}\nIt was settled elsewhere before this press.` } };
  }
  if (error.kind === "unauthorized") {
    return { title: "Sign in to answer", options: { ...base, body: "Your sign-in ended. Open Beckon to sign in and answer." } };
  }
  return { title: "Not answered", options: { ...base, body: `${error.message}\nOpen Beckon to answer.` } };
}
