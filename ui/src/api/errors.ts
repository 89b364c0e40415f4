import type { ErrorBody } from "../bindings/ErrorBody";

/** The kinds of error the backend names; anything else is treated as `internal`. */
export type ErrorKind =
  | "not_found"
  | "already_resolved"
  | "invalid_answer"
  | "invalid_input"
  | "wrong_state"
  | "unavailable"
  | "internal";

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
