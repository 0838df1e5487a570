import { useEffect, useRef } from 'react';

/**
 * Calls `tick` every `intervalMs` while `active`, one call at a time (the next waits for the previous to
 * settle). Nothing runs while the page is hidden; coming back runs a tick at once.
 */
export function usePolling(active: boolean, intervalMs: number, tick: () => Promise<unknown> | void): void {
  const tickRef = useRef(tick);
  useEffect(() => {
    tickRef.current = tick;
  });
  useEffect(() => {
    if (!active) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const schedule = () => {
      clearTimeout(timer);
      if (!stopped && !document.hidden) timer = setTimeout(run, intervalMs);
    };
    const run = () => {
      void Promise.resolve()
        .then(() => tickRef.current())
        .catch(() => {})
        .finally(schedule);
    };
    const onVisibility = () => {
      if (document.hidden) clearTimeout(timer);
      else run();
    };
    schedule();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [active, intervalMs]);
}
