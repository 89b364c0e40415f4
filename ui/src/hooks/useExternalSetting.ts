import { useEffect, useState } from "react";
import { errorBodyOf } from "../api/errors";

/** A setting kept outside Beckon's own settings, as a panel shows and changes it. */
export interface ExternalSetting<T, A> {
  /** The value, once read (null until then). */
  value: T | null;
  /** A change is under way. */
  busy: boolean;
  /** Why the last read or change failed, until the next change. */
  error: string | null;
  /** Changes it with `next`; the value becomes what the change answers. */
  change: (next: A) => Promise<void>;
}

/**
 * A setting that lives outside Beckon's settings file (the system's login item, Claude Code's
 * settings), so it is not saved with the form: read when the panel opens, changed at once.
 * `read` and `write` are the backend's commands, the same functions from one render to the next:
 * a new `read` reads again.
 */
export function useExternalSetting<T, A>(read: () => Promise<T>, write: (next: A) => Promise<T>): ExternalSetting<T, A> {
  const [value, setValue] = useState<T | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    read().then(
      (found) => live && setValue(found),
      (failure: unknown) => live && setError(errorBodyOf(failure).message),
    );
    return () => {
      live = false;
    };
  }, [read]);

  const change = async (next: A) => {
    setBusy(true);
    setError(null);
    try {
      setValue(await write(next));
    } catch (failure) {
      setError(errorBodyOf(failure).message);
    }
    setBusy(false);
  };

  return { value, busy, error, change };
}
