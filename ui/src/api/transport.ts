import { invoke } from "@tauri-apps/api/core";
import type { DesktopCommand } from "../bindings/DesktopCommand";
import type { DesktopReplies } from "../bindings/DesktopReplies";
import type { ErrorBody } from "../bindings/ErrorBody";
import type { WindowCommand } from "../bindings/WindowCommand";
import type { WindowReplies } from "../bindings/WindowReplies";
import { WINDOW_COMMANDS } from "../bindings/windowCommands";
import { CommandError, toErrorBody } from "./errors";

/** Every command the window sends: those a team server serves too, and the desktop app's own. */
export type Command = WindowCommand | DesktopCommand;
/** A command's name. */
export type CommandName = Command["command"];
/** The arguments of command `N`. */
export type ArgsOf<N extends CommandName> = Extract<Command, { command: N }>["args"];
/** The reply to command `N`. */
export type ReplyOf<N extends CommandName> = (WindowReplies & DesktopReplies)[N];
/** What follows a command's name in a call: its arguments, which may be left out when none is required. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- "an object with no required field"
export type ArgsFor<N extends CommandName> = {} extends ArgsOf<N> ? [args?: ArgsOf<N>] : [args: ArgsOf<N>];

/**
 * Whether the window runs in the desktop app (Tauri's IPC is there) or in a browser, served by a
 * team server. Asked at each call: tests and the mock build install their IPC after this module
 * loads.
 */
export function inDesktop(): boolean {
  return typeof window !== "undefined" && "__TAURI_INTERNALS__" in window;
}

/** The person signed in to a team server, as its `/v1/me` says. */
export interface SignedInPerson {
  subject: string;
  name: string | null;
  email: string | null;
  groups: string[];
  /** In the identity provider's admin group: sees every question. */
  admin: boolean;
}

interface Me extends SignedInPerson {
  kind: "member";
  /** Sent with every call, so another site's page cannot make one with the person's cookie. */
  csrf_token: string;
}

let me: Promise<Me> | null = null;

/** Sends the browser to the team server's sign-in, to come back to this page after it. */
export function signIn(): void {
  window.location.assign(`/auth/login?next=${encodeURIComponent(window.location.pathname)}`);
}

/**
 * Signs the person out of the team server, then where it says: the identity provider's own
 * sign-out when it offers one (so the next person at this computer is asked who they are), else
 * the signed-out page.
 */
export async function signOut(): Promise<void> {
  const { csrf_token } = await whoAmI();
  const response = await fetch("/auth/logout", { method: "POST", credentials: "same-origin", headers: { "x-csrf-token": csrf_token } });
  const body: unknown = await response.json().catch(() => null);
  const next = typeof body === "object" && body !== null && "next" in body && typeof body.next === "string" ? body.next : "/auth/signed-out";
  me = null;
  window.location.assign(next);
}

function unreachable(error: unknown): CommandError {
  return new CommandError({ kind: "unavailable", message: `The team server cannot be reached: ${error instanceof Error ? error.message : String(error)}` });
}

/** The `ErrorBody` of a refused response (`{"error": {...}}`), or one saying what came back. */
async function refusal(response: Response): Promise<ErrorBody> {
  const body: unknown = await response.json().catch(() => null);
  const error = typeof body === "object" && body !== null && "error" in body ? (body as { error: unknown }).error : null;
  return error ? toErrorBody(error) : { kind: "internal", message: `The team server answered ${response.status} ${response.statusText}.` };
}

/** Who is signed in; not signed in (or signed out elsewhere) goes to sign in. */
async function whoAmI(): Promise<Me> {
  me ??= (async () => {
    let response: Response;
    try {
      response = await fetch("/v1/me", { credentials: "same-origin", headers: { accept: "application/json" } });
    } catch (error) {
      throw unreachable(error);
    }
    if (response.status === 401) signIn();
    if (!response.ok) throw new CommandError(await refusal(response));
    const body = (await response.json()) as Me | { kind: string };
    if (body.kind !== "member") throw new CommandError({ kind: "unauthorized", message: "This page is for people who sign in; agents use tokens." });
    return body as Me;
  })();
  try {
    return await me;
  } catch (error) {
    me = null;
    throw error;
  }
}

/** The person signed in to the team server this page came from. */
export async function signedInPerson(): Promise<SignedInPerson> {
  const { subject, name, email, groups, admin } = await whoAmI();
  return { subject, name, email, groups, admin };
}

/** Asks the team server again who is signed in: a person signed out meanwhile goes to sign in. */
export async function checkSignedIn(): Promise<void> {
  me = null;
  await whoAmI();
}

/** Whether `command` is one a team server serves (the rest belong to the desktop app). */
function onTeamServer(command: CommandName): command is WindowCommand["command"] {
  return (WINDOW_COMMANDS as readonly string[]).includes(command);
}

/** A team server's answer to window command `command`. */
async function post<N extends CommandName>(command: N, args: ArgsOf<N> | undefined): Promise<ReplyOf<N>> {
  if (!onTeamServer(command)) {
    throw new CommandError({ kind: "not_found", message: "This is done in the Beckon desktop app, not on a team server." });
  }
  const { csrf_token } = await whoAmI();
  let response: Response;
  try {
    response = await fetch(`/v1/window/${command}`, {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json", "x-csrf-token": csrf_token },
      body: JSON.stringify(args ?? {}),
    });
  } catch (error) {
    throw unreachable(error);
  }
  if (response.ok) return (await response.json()) as ReplyOf<N>;
  if (response.status === 401) {
    me = null;
    signIn();
  }
  throw new CommandError(await refusal(response));
}

/**
 * Runs window command `command` with its arguments: over IPC in the desktop app (every command
 * goes through its one `window_command`), over HTTP on a team server.
 */
export async function call<N extends CommandName>(command: N, ...[args]: ArgsFor<N>): Promise<ReplyOf<N>> {
  if (!inDesktop()) return post(command, args);
  try {
    return await invoke<ReplyOf<N>>("window_command", { command, args: args ?? {} });
  } catch (error) {
    throw new CommandError(toErrorBody(error));
  }
}
