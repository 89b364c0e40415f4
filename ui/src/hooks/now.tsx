import { createContext, useContext, useEffect, useState, type ReactNode } from "react";

const NowContext = createContext<number | null>(null);

/**
 * One clock for the whole window, ticking every `intervalMs`, so every "waiting 3 min" label
 * moves together and only one timer runs.
 */
export function NowProvider({ children, intervalMs = 15_000 }: { children: ReactNode; intervalMs?: number }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), intervalMs);
    return () => window.clearInterval(timer);
  }, [intervalMs]);
  return <NowContext.Provider value={now}>{children}</NowContext.Provider>;
}

/** A fixed clock, for tests and previews. */
export function FixedNow({ at, children }: { at: number; children: ReactNode }) {
  return <NowContext.Provider value={at}>{children}</NowContext.Provider>;
}

/** The current time (Unix ms), as of the window clock's last tick. */
export function useNow(): number {
  const now = useContext(NowContext);
  if (now === null) throw new Error("useNow needs a NowProvider or FixedNow");
  return now;
}
