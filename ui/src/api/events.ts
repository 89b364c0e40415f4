import { Channel, invoke } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";
import type { NavTarget } from "../bindings/NavTarget";
import type { UiEvent } from "../bindings/UiEvent";
import type { LiveEvent } from "../bindings/LiveEvent";
import type { TeamState } from "../bindings/TeamState";
import { CommandError, toErrorBody } from "./errors";
import { checkSignedIn, inDesktop } from "./transport";

/** Every kind of event a team server's stream names (a kind added to `LiveEvent` fails the type-check here until it is listed). */
const LIVE_KINDS: Record<LiveEvent["kind"], true> = {
  session_started: true,
  session_status: true,
  message_appended: true,
  question_pending: true,
  question_resolved: true,
  session_resumed: true,
  session_deleted: true,
};

/**
 * Follows a team server's event stream (`/v1/events`, cut to what the person may see). The
 * browser reconnects by itself from the last event's id; a stream the server closed for good
 * (signed out) sends the person to sign in.
 */
function follow(afterSeq: number, onEvent: (event: UiEvent) => void): () => void {
  const source = new EventSource(`/v1/events?after=${afterSeq}`, { withCredentials: true });
  const deliver = (message: MessageEvent<string>) => {
    try {
      onEvent({ type: "live", event: JSON.parse(message.data) as LiveEvent });
    } catch {
      // A line that is not an event is not one to apply.
    }
  };
  for (const kind of Object.keys(LIVE_KINDS)) source.addEventListener(kind, deliver);
  source.onerror = () => {
    // Closed, not reconnecting: asking who is signed in sends a signed-out person to sign in.
    if (source.readyState === EventSource.CLOSED) void checkSignedIn().catch(() => undefined);
  };
  return () => source.close();
}

/**
 * Follows the event stream after `afterSeq`. The returned function stops delivery to
 * `onEvent` (the backend replaces a window's stream when it subscribes again, so an old
 * channel only needs to be muted, not closed).
 */
export async function subscribe(afterSeq: number, onEvent: (event: UiEvent) => void): Promise<() => void> {
  if (!inDesktop()) return follow(afterSeq, onEvent);
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
  // In a browser only the address steers the window.
  if (!inDesktop()) return () => undefined;
  return listen<NavTarget>("navigate", (event) => handler(event.payload));
}

/** Listens for news of the team inboxes the desktop app is connected to. */
export async function onTeamInboxes(handler: (state: TeamState) => void): Promise<() => void> {
  if (!inDesktop()) return () => undefined;
  return listen<TeamState>("team", (event) => handler(event.payload));
}

/** Listens for the person pressing the test notification (its action: "test:pressed" or "default"). */
export async function onTestNotificationPressed(handler: (action: string) => void): Promise<() => void> {
  return listen<string>("test_notification_pressed", (event) => handler(event.payload));
}
