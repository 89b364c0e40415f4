// The same mark as Beckon's window sets (ui/src/hooks/useReadyMark.ts): the first frame out.
requestAnimationFrame(() => setTimeout(() => performance.mark("beckon:ready"), 0));
