import { Channel, invoke } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";
import type { NavTarget } from "../bindings/NavTarget";
import type { UiEvent } from "../bindings/UiEvent";
import { CommandError, toErrorBody } from "./errors";

/**
 * Follows the event stream after `afterSeq`. The returned function stops delivery to
 * `onEvent` (the backend replaces a window's stream when it subscribes again, so an old
 * channel only needs to be muted, not closed).
 */
export async function subscribe(afterSeq: number, onEvent: (event: UiEvent) => void): Promise<() => void> {
  let active = true;
  const channel = new Channel<UiEvent>((event) => {
    if (active) onEvent(event);
  });
  try {
    await invoke("subscribe", { afterSeq, onEvent: channel });
  } catch (error) {
    throw new CommandError(toErrorBody(error));
  }
  return () => {
    active = false;
  };
}

/** Listens for `navigate` requests from notifications, the tray and deep links. */
export async function onNavigate(handler: (target: NavTarget) => void): Promise<() => void> {
  return listen<NavTarget>("navigate", (event) => handler(event.payload));
}

/** Listens for the person pressing the test notification (its action: "test:pressed" or "default"). */
export async function onTestNotificationPressed(handler: (action: string) => void): Promise<() => void> {
  return listen<string>("test_notification_pressed", (event) => handler(event.payload));
}
