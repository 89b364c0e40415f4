import { useEffect, useState, type ReactNode, type RefObject } from "react";

/** The viewport assumed before the scroller has been measured (and where layout is absent, as in jsdom). */
const FALLBACK_VIEWPORT_PX = 720;

/** The first and last index (exclusive) to draw for a scroll position. */
export function visibleRange(count: number, rowHeight: number, scrollTop: number, viewport: number, overscan: number): { start: number; end: number } {
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const last = Math.ceil((Math.max(0, scrollTop) + viewport) / rowHeight);
  return { start: Math.max(0, first - overscan), end: Math.min(count, last + overscan) };
}

/** Scrolls `scroller` the least needed for row `index` to be fully on screen. */
export function scrollRowIntoView(scroller: HTMLElement, index: number, rowHeight: number): void {
  const top = index * rowHeight;
  const bottom = top + rowHeight;
  const view = scroller.clientHeight || FALLBACK_VIEWPORT_PX;
  if (top < scroller.scrollTop) scroller.scrollTop = top;
  else if (bottom > scroller.scrollTop + view) scroller.scrollTop = bottom - view;
}

/** Whether row `index` lies wholly inside the scroller's viewport. */
export function rowOnScreen(scroller: HTMLElement, index: number, rowHeight: number): boolean {
  const top = index * rowHeight;
  const view = scroller.clientHeight || FALLBACK_VIEWPORT_PX;
  return top >= scroller.scrollTop - 1 && top + rowHeight <= scroller.scrollTop + view + 1;
}

/**
 * A list of `count` lines of one fixed height inside `scroller`, drawing only the lines on
 * screen and `overscan` more on each side; the rest is empty space of the right height, so the
 * scroll bar tells the truth. `render` draws the lines from `start` to `end` (exclusive), each at
 * `index * rowHeight` from the top of that space.
 */
export function VirtualList({
  scroller,
  count,
  rowHeight,
  overscan = 6,
  render,
}: {
  scroller: RefObject<HTMLElement | null>;
  count: number;
  rowHeight: number;
  overscan?: number;
  render: (start: number, end: number) => ReactNode;
}) {
  const [view, setView] = useState({ top: 0, height: 0 });
  useEffect(() => {
    const element = scroller.current;
    if (!element) return;
    const measure = () => setView((old) => (old.top === element.scrollTop && old.height === element.clientHeight ? old : { top: element.scrollTop, height: element.clientHeight }));
    measure();
    element.addEventListener("scroll", measure, { passive: true });
    const observer = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(measure);
    observer?.observe(element);
    return () => {
      element.removeEventListener("scroll", measure);
      observer?.disconnect();
    };
  }, [scroller]);

  const { start, end } = visibleRange(count, rowHeight, view.top, view.height || FALLBACK_VIEWPORT_PX, overscan);
  return (
    <div className="vlist-space" style={{ height: count * rowHeight }}>
      {render(start, end)}
    </div>
  );
}
