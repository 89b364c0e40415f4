import type { ErrorBody } from "../bindings/ErrorBody";
import type { ErrorKind } from "../bindings/ErrorKind";

/**
 * The heading the window shows above an error's message. Every kind is named, so a kind the
 * backend adds fails the type-check here until the window says what it means.
 */
export function errorHeading(kind: ErrorKind): string {
  switch (kind) {
    case "unavailable":
      return "Beckon could not start";
    case "not_found":
    case "already_resolved":
    case "invalid_answer":
    case "invalid_input":
    case "wrong_state":
    case "person_only":
    case "internal":
    case "bad_request":
    case "method_not_allowed":
    case "forbidden":
    case "unauthorized":
    case "too_large":
    case "body_timeout":
    case "too_many_open":
    case "rate_limited":
      return "Something went wrong";
    default: {
      const unknown: never = kind;
      return unknown;
    }
  }
}

function isErrorBody(value: unknown): value is ErrorBody {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { kind?: unknown }).kind === "string" &&
    typeof (value as { message?: unknown }).message === "string"
  );
}

/**
 * Turns whatever a command rejected with into an `ErrorBody`. Commands reject with one, but a
 * broken IPC bridge rejects with a string or an `Error`, and the window must still say something.
 */
export function toErrorBody(error: unknown): ErrorBody {
  if (isErrorBody(error)) return error;
  if (error instanceof Error) return { kind: "internal", message: error.message };
  if (typeof error === "string") return { kind: "internal", message: error };
  return { kind: "internal", message: "Something went wrong." };
}

/** A command failure carried as an exception, so callers can `catch` one typed value. */
export class CommandError extends Error {
  readonly body: ErrorBody;

  constructor(body: ErrorBody) {
    super(body.message);
    this.name = "CommandError";
    this.body = body;
  }
}

/** The `ErrorBody` of anything caught around a command call. */
export function errorBodyOf(error: unknown): ErrorBody {
  return error instanceof CommandError ? error.body : toErrorBody(error);
}
