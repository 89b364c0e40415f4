/** Only these schemes become links; anything else (javascript:, data:, file:, beckon:) is text. */
const OPENABLE = /^(https?:\/\/|mailto:)/i;

/** The URL a link may open, or null. */
export function openableUrl(url: string | null | undefined): string | null {
  const trimmed = url?.trim() ?? "";
  return OPENABLE.test(trimmed) ? trimmed : null;
}
