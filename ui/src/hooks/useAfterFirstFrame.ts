import { useEffect, useState } from "react";

/**
 * Runs `run` once the next frame has been painted (a frame callback runs before the paint, and
 * the task it queues after it); returns what cancels it.
 */
export function afterNextPaint(run: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const frame = requestAnimationFrame(() => {
    timer = setTimeout(run, 0);
  });
  return () => {
    cancelAnimationFrame(frame);
    if (timer !== undefined) clearTimeout(timer);
  };
}

/**
 * False until the first frame with the calling component in it has been painted, then true:
 * for what can wait a frame so the first one comes sooner.
 */
export function useAfterFirstFrame(): boolean {
  const [painted, setPainted] = useState(false);
  useEffect(() => afterNextPaint(() => setPainted(true)), []);
  return painted;
}
