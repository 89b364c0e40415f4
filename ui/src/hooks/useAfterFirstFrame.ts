import { useEffect, useState } from "react";

/**
 * False until the first frame with the calling component in it has been painted, then true:
 * for what can wait a frame so the first one comes sooner.
 */
export function useAfterFirstFrame(): boolean {
  const [painted, setPainted] = useState(false);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    // The callback runs before the next paint; the task after it runs once that frame is out.
    const frame = requestAnimationFrame(() => {
      timer = setTimeout(() => setPainted(true), 0);
    });
    return () => {
      cancelAnimationFrame(frame);
      if (timer !== undefined) clearTimeout(timer);
    };
  }, []);
  return painted;
}
