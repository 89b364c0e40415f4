const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A span of time as people say it: "<1 min", "3 min", "2 h 5 min", "1 day 4 h", "5 days". */
export function formatDuration(ms: number): string {
  const span = Math.max(0, ms);
  if (span < MINUTE) return "<1 min";
  if (span < HOUR) return `${Math.floor(span / MINUTE)} min`;
  if (span < DAY) {
    const hours = Math.floor(span / HOUR);
    const minutes = Math.floor((span % HOUR) / MINUTE);
    return minutes === 0 ? `${hours} h` : `${hours} h ${minutes} min`;
  }
  const days = Math.floor(span / DAY);
  const hours = Math.floor((span % DAY) / HOUR);
  const dayWord = days === 1 ? "day" : "days";
  return days < 3 && hours > 0 ? `${days} ${dayWord} ${hours} h` : `${days} ${dayWord}`;
}

/** How long a question has waited: "waiting 3 min". */
export function waitingLabel(createdAtMs: number, nowMs: number): string {
  return `waiting ${formatDuration(nowMs - createdAtMs)}`;
}

/** When a question expires: "expires in 2 h", or "expiring now" once its deadline has passed. */
export function expiryLabel(expiresAtMs: number, nowMs: number): string {
  return expiresAtMs <= nowMs ? "expiring now" : `expires in ${formatDuration(expiresAtMs - nowMs)}`;
}

/** How long ago something happened: "just now", "3 min ago". */
export function agoLabel(atMs: number, nowMs: number): string {
  const span = nowMs - atMs;
  return span < MINUTE ? "just now" : `${formatDuration(span)} ago`;
}

// Made once: `toLocaleString` builds a formatter on every call, which a list of a hundred
// sessions pays for at start-up.
let dateTime: Intl.DateTimeFormat | null = null;

/** A timestamp for a tooltip, in the person's locale (what `Date#toLocaleString` gives). */
export function absoluteTime(atMs: number): string {
  dateTime ??= new Intl.DateTimeFormat(undefined, { year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric" });
  return dateTime.format(new Date(atMs));
}

/** A compact age for lists: "now", "3 min", "2 h", "4 d". */
export function shortAge(atMs: number, nowMs: number): string {
  const span = Math.max(0, nowMs - atMs);
  if (span < MINUTE) return "now";
  if (span < HOUR) return `${Math.floor(span / MINUTE)} min`;
  if (span < DAY) return `${Math.floor(span / HOUR)} h`;
  return `${Math.floor(span / DAY)} d`;
}
