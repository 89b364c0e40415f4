import { useEffect, useRef, useState, type ReactNode, type RefObject } from "react";

/** How far beyond the visible part of the scroller content is mounted ahead of time. */
const AHEAD = "1200px 0px";

/**
 * Renders `children` once they come near the visible part of `scroller`, and keeps them
 * mounted from then on (so nothing typed into them is lost). Until then a light placeholder of
 * about the right height holds their place, carrying `id` so navigation can still find and
 * scroll to it. `eager` renders at once; so does a browser without IntersectionObserver.
 */
export function MountWhenNear({
  scroller,
  eager,
  id,
  estimate,
  children,
}: {
  scroller: RefObject<HTMLElement | null>;
  eager: boolean;
  id: string;
  estimate: number;
  children: ReactNode;
}) {
  const [near, setNear] = useState(() => eager || typeof IntersectionObserver === "undefined");
  const placeholder = useRef<HTMLDivElement | null>(null);

  // Once asked for eagerly (say, navigated to), it stays mounted.
  if (eager && !near) setNear(true);

  useEffect(() => {
    const target = placeholder.current;
    if (near || !target) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) setNear(true);
      },
      { root: scroller.current, rootMargin: AHEAD },
    );
    observer.observe(target);
    return () => observer.disconnect();
  }, [near, scroller]);

  if (near) return <>{children}</>;
  return <div ref={placeholder} className="mount-placeholder" data-request-id={id} aria-busy="true" style={{ minHeight: estimate }} />;
}
