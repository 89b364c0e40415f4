import { useSyncExternalStore } from "react";

/**
 * When the window takes the phone layout: a phone held upright (360–430 px) or anything that
 * narrow, and a phone on its side (a touch screen under 500 px tall), where the sidebar beside
 * the list beside the card leaves room for none of them. The CSS's layout blocks use the same
 * query; keep the two in step.
 */
export const PHONE_LAYOUT = "(max-width: 640px), (max-height: 500px) and (pointer: coarse)";

function query(): MediaQueryList | null {
  // jsdom and very old engines have no matchMedia: they get the desktop layout.
  return typeof window.matchMedia === "function" ? window.matchMedia(PHONE_LAYOUT) : null;
}

function subscribe(onChange: () => void): () => void {
  const list = query();
  list?.addEventListener("change", onChange);
  return () => list?.removeEventListener("change", onChange);
}

const matches = () => query()?.matches ?? false;

/**
 * Whether the window has the phone layout. Only what exists just for it (the top bar, the
 * inbox's way back to its list, the folded filters) is drawn from this; the layout itself is
 * the CSS's.
 */
export function usePhoneLayout(): boolean {
  return useSyncExternalStore(subscribe, matches, () => false);
}
