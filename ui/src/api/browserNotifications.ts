import type { PendingQuestion } from "../bindings/PendingQuestion";
import { asksLabel } from "../format/labels";
import { lastFolder, lineOf } from "../state/triage";
import { pushesOn } from "./webPush";

/**
 * Notifications in a browser on a team server: the Notification API stands in for the desktop's
 * OS notifications, once the person allows them (the browser asks only when they press the
 * sidebar's button). A notification opens the question; answering happens in the page.
 */

/** Whether this browser can notify, and whether the person has said yes or no. */
export type NotificationState = "unsupported" | NotificationPermission;

export function notificationState(): NotificationState {
  return typeof Notification === "undefined" ? "unsupported" : Notification.permission;
}

/** Asks the browser for permission (it shows its own prompt); what the person chose. */
export async function allowNotifications(): Promise<NotificationState> {
  if (typeof Notification === "undefined") return "unsupported";
  return Notification.requestPermission();
}

/** The notification's title and text for a question now waiting. */
export function notificationText(question: PendingQuestion): { title: string; body: string } {
  const line = lineOf(question.request);
  const body = line.summary || line.text;
  return { title: `${asksLabel(question.origin, question.agent)}${line.project ? ` · ${lastFolder(line.project)}` : ""}`, body };
}

/**
 * Shows a question now waiting, when the person allowed it and is not looking at the page;
 * pressing it opens the question. Not when the server pushes to this browser: the worker shows
 * the question then, with its buttons, and a page's notification would replace that one.
 */
export function notifyPending(question: PendingQuestion, open: (id: string) => void): void {
  if (notificationState() !== "granted" || pushesOn()) return;
  if (document.visibilityState === "visible" && document.hasFocus()) return;
  const { title, body } = notificationText(question);
  // One per question: the same question notified again replaces its notification.
  const shown = new Notification(title, { body, tag: question.id });
  shown.onclick = () => {
    window.focus();
    open(question.id);
    shown.close();
  };
}
