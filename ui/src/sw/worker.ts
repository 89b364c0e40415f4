/// <reference lib="webworker" />
import type { AnswerReceipt } from "../bindings/AnswerReceipt";
import type { ErrorBody } from "../bindings/ErrorBody";
import type { PushMessage } from "../bindings/PushMessage";
import { answerFor, notificationOf, outcomeOf, pageFor, type Shown } from "./pushed";

/**
 * The window's service worker, on a team server (`/sw.js`). It keeps the app's shell — the page
 * and the files it loads, listed at build — so the installed app opens at once and says so when
 * the server cannot be reached; questions and answers are never cached. It shows the pushes the
 * server sends (decrypted by the browser) and answers from their buttons as the signed-in
 * person, with the page's CSRF token, then shows how the question ended.
 */

declare const self: ServiceWorkerGlobalScope;
/** The shell's files, relative to this worker; written in at build. */
declare const BECKON_SHELL: string[];

const CACHE_PREFIX = "beckon-shell-";
/** Each build's shell under its own name: a new worker fills its cache and drops the old ones. */
const CACHE = `${CACHE_PREFIX}${hash(BECKON_SHELL.join("\n"))}`;
const SHELL = new Set(BECKON_SHELL.map((path) => new URL(path, self.location.href).pathname));

function hash(text: string): string {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (Math.imul(31, h) + text.charCodeAt(i)) | 0;
  return (h >>> 0).toString(36);
}

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      await cache.addAll(BECKON_SHELL);
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name.startsWith(CACHE_PREFIX) && name !== CACHE) await caches.delete(name);
      await self.clients.claim();
    })(),
  );
});

/** The page itself: from the network, so a new version is seen at once; the kept one offline. */
async function page(request: Request): Promise<Response> {
  try {
    return await fetch(request);
  } catch (error) {
    const kept = await caches.match(new URL("./", self.location.href).href, { cacheName: CACHE });
    if (kept) return kept;
    throw error;
  }
}

/** A shell file: the kept copy (its name carries its content's hash), else the network. */
async function file(request: Request): Promise<Response> {
  const kept = await caches.match(request, { cacheName: CACHE });
  return kept ?? fetch(request);
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  // The API, signing in and everything else: straight to the server, never kept.
  if (url.pathname.startsWith("/v1/") || url.pathname.startsWith("/auth/")) return;
  if (request.mode === "navigate") event.respondWith(page(request));
  else if (SHELL.has(url.pathname)) event.respondWith(file(request));
});

async function show(shown: Shown): Promise<void> {
  await self.registration.showNotification(shown.title, shown.options);
}

self.addEventListener("push", (event) => {
  let message: PushMessage;
  try {
    message = event.data?.json() as PushMessage;
  } catch {
    return;
  }
  if (!message || typeof message !== "object" || !("kind" in message)) return;
  event.waitUntil(show(notificationOf(message)));
});

/** Answers with the notification's button `action` as the signed-in person; what ended up shown. */
async function press(message: PushMessage, action: string): Promise<Shown | null> {
  const answer = answerFor(message, action);
  if (!answer) return null;
  const label = answer.answers[0]?.selected?.[0] ?? "";
  const refused = (error: ErrorBody) => outcomeOf(message, label, { error });
  let shown: Shown;
  try {
    const me = await fetch("/v1/me", { credentials: "same-origin", headers: { accept: "application/json" } });
    const who = (await me.json().catch(() => null)) as { kind?: string; csrf_token?: string } | null;
    if (!me.ok || who?.kind !== "member" || !who.csrf_token) {
      shown = refused({ kind: "unauthorized", message: "Your sign-in ended." });
    } else {
      const response = await fetch("/v1/window/answer", {
        method: "POST",
        credentials: "same-origin",
        headers: { "content-type": "application/json", "x-csrf-token": who.csrf_token },
        body: JSON.stringify(answer),
      });
      const body: unknown = await response.json().catch(() => null);
      shown = response.ok
        ? outcomeOf(message, label, { receipt: body as AnswerReceipt })
        : refused(((body as { error?: ErrorBody } | null)?.error ?? { kind: "internal", message: `HTTP ${response.status}` }) as ErrorBody);
    }
  } catch {
    shown = refused({ kind: "unavailable", message: "The team server cannot be reached." });
  }
  await show(shown);
  return shown;
}

/** Opens (or brings forward) the window at `path`. */
async function open(path: string): Promise<void> {
  const url = new URL(path, self.location.href).href;
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const existing = windows[0];
  if (existing) {
    await existing.focus();
    await existing.navigate(url).catch(() => undefined);
    return;
  }
  await self.clients.openWindow(url);
}

self.addEventListener("notificationclick", (event) => {
  const message = event.notification.data as PushMessage | undefined;
  event.notification.close();
  if (!message) return;
  event.waitUntil(
    (async () => {
      if (event.action && (await press(message, event.action))) return;
      await open(pageFor(message));
    })(),
  );
});

// What the browser tests reach through the DevTools protocol: the press, as a notification's
// button makes it (no browser lets a test press a system notification's button).
(self as unknown as { beckonPress: typeof press }).beckonPress = press;
