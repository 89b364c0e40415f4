import type { PushSubscription as PushDevice } from "../bindings/PushSubscription";
import type { Commands } from "./commands";
import { inDesktop } from "./transport";

/**
 * The window as an installed web app on a team server: its service worker (`sw.js`: the app's
 * shell kept for opening at once, and the pushes the server sends), and pushes turned on and off
 * for this browser. The server pushes a person's questions to each browser they turned pushes
 * on in, for as long as they stay signed in there — with the page closed, end to end encrypted.
 */

/** Where this browser stands with pushes. */
export type PushState = "unsupported" | "denied" | "off" | "on";

/** Whether the server pushes to this browser, as last learnt: its worker then shows each question. */
let pushing = false;

/** Whether this browser's questions come as pushes (shown by the worker, with their buttons). */
export function pushesOn(): boolean {
  return pushing;
}

function learnt(state: PushState): PushState {
  pushing = state === "on";
  return state;
}

/** Whether this page can have pushes: a browser (not the desktop app) with service workers and the Push API, on a secure page. */
export function pushSupported(): boolean {
  return (
    !inDesktop() &&
    import.meta.env.MODE !== "mock" &&
    typeof window !== "undefined" &&
    window.isSecureContext &&
    "serviceWorker" in navigator &&
    "PushManager" in window &&
    typeof Notification !== "undefined"
  );
}

/** Registers the window's service worker, in a browser only; none where it cannot run. */
export async function registerWorker(): Promise<ServiceWorkerRegistration | null> {
  if (inDesktop() || import.meta.env.MODE === "mock" || typeof navigator === "undefined" || !("serviceWorker" in navigator)) return null;
  try {
    return await navigator.serviceWorker.register("./sw.js", { scope: "./" });
  } catch {
    return null;
  }
}

async function subscription(): Promise<PushSubscription | null> {
  const registration = await navigator.serviceWorker.getRegistration("./");
  return (await registration?.pushManager.getSubscription()) ?? null;
}

/** Where this browser stands: on when it holds a subscription. */
export async function pushState(): Promise<PushState> {
  if (!pushSupported()) return learnt("unsupported");
  if (Notification.permission === "denied") return learnt("denied");
  return learnt((await subscription()) ? "on" : "off");
}

/** A base64url text as bytes (the server's key, as `subscribe` takes it). */
function bytesOf(base64url: string): Uint8Array<ArrayBuffer> {
  const base64 = base64url.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(base64url.length / 4) * 4, "=");
  const text = atob(base64);
  const bytes = new Uint8Array(new ArrayBuffer(text.length));
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/** The subscription as the server keeps it. */
export function deviceOf(subscription: PushSubscriptionJSON): PushDevice {
  const { endpoint, keys } = subscription;
  if (!endpoint || !keys?.p256dh || !keys.auth) throw new Error("the browser gave a push subscription without its endpoint or keys");
  return { endpoint, keys: { p256dh: keys.p256dh, auth: keys.auth } };
}

/**
 * Turns pushes on for this browser: the browser asks the person (only now, on their press),
 * subscribes with the server's key, and the server keeps the subscription for this sign-in.
 */
export async function turnPushOn(api: Pick<Commands, "pushOffer" | "addPushDevice">): Promise<PushState> {
  const permission = await Notification.requestPermission();
  if (permission !== "granted") return permission === "denied" ? "denied" : "off";
  const registration = (await registerWorker()) ?? (await navigator.serviceWorker.ready);
  await navigator.serviceWorker.ready;
  const { applicationServerKey } = await api.pushOffer();
  const subscribed = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: bytesOf(applicationServerKey) });
  await api.addPushDevice(deviceOf(subscribed.toJSON()));
  return learnt("on");
}

/** Turns pushes off for this browser, on the server and in the browser. */
export async function turnPushOff(api: Pick<Commands, "removePushDevice">): Promise<PushState> {
  const subscribed = await subscription();
  if (subscribed) {
    await api.removePushDevice(subscribed.endpoint);
    await subscribed.unsubscribe();
  }
  return learnt("off");
}
