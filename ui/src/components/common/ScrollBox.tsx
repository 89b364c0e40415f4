import { useLayoutEffect, useRef, useState, type ReactNode } from "react";

/** Whether `box` holds more than it shows, sideways or down. */
function overflows(box: HTMLElement): boolean {
  return box.scrollWidth > box.clientWidth + 1 || box.scrollHeight > box.clientHeight + 1;
}

/**
 * A box whose content may be wider or taller than it (code, a table). While it scrolls it is a
 * named region that takes keyboard focus, so the arrow keys scroll it; otherwise it is no stop
 * for Tab.
 */
export function ScrollBox({ kind, label, className, children }: { kind: "pre" | "div"; label: string; className?: string; children: ReactNode }) {
  const ref = useRef<HTMLPreElement & HTMLDivElement>(null);
  const [scrolls, setScrolls] = useState(false);
  useLayoutEffect(() => {
    const box = ref.current;
    if (!box) return;
    const measure = () => setScrolls(overflows(box));
    measure();
    if (typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(measure);
    observer.observe(box);
    return () => observer.disconnect();
  }, []);
  const reachable = scrolls ? { tabIndex: 0, role: "region", "aria-label": label } : {};
  return kind === "pre" ? (
    <pre ref={ref} className={className} {...reachable}>
      {children}
    </pre>
  ) : (
    <div ref={ref} className={className} {...reachable}>
      {children}
    </div>
  );
}
