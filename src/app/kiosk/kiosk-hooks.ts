import { useEffect, useState } from 'react';
import { type DataOrigin } from '../../lib/api-client.ts';
import { messageOf } from '../../lib/error-message.ts';
import { nextRefreshDelay, REFRESH_HIDDEN_MS, type PanelId } from './kiosk-config.ts';
import { LOADERS, type Loaded, type PanelData } from './kiosk-data.ts';

export interface PanelState<K extends PanelId = PanelId> {
  /** The last good answer: kept when later refreshes fail, so the wall never goes blank. */
  data?: PanelData[K];
  origin?: DataOrigin;
  /** When the last good answer arrived (ms). */
  fetchedAt?: number;
  /** The last refresh's failure, null once it succeeds again. */
  error?: string | null;
}

export interface FeedState {
  panels: { [K in PanelId]?: PanelState<K> };
  /** Consecutive refreshes where every panel failed (backend unreachable); drives the retry backoff. */
  failures: number;
  lastAttemptAt: number | null;
}

export type Loaders = { [K in PanelId]: () => Promise<Loaded<PanelData[K]>> };

/**
 * Loads the chosen panels together, then again every minute while visible, every 5 min while hidden; when every
 * panel fails it retries with backoff (5 s, 10 s… 2 min). Coming back (visible, online) refreshes at once.
 */
export function useKioskFeed(panels: PanelId[], loaders: Loaders = LOADERS): FeedState {
  const [state, setState] = useState<FeedState>({ panels: {}, failures: 0, lastAttemptAt: null });
  const key = panels.join(',');

  useEffect(() => {
    const ids = key.split(',') as PanelId[];
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    let inFlight = false;
    let failures = 0;

    const schedule = (ms: number) => {
      clearTimeout(timer);
      if (!stopped) timer = setTimeout(() => void cycle(), ms);
    };

    async function cycle(): Promise<void> {
      if (inFlight || stopped) return;
      inFlight = true;
      clearTimeout(timer);
      const results = await Promise.allSettled(ids.map((id) => (loaders[id] as () => Promise<Loaded<unknown>>)()));
      inFlight = false;
      if (stopped) return;
      const now = Date.now();
      failures = results.every((r) => r.status === 'rejected') ? failures + 1 : 0;
      const count = failures;
      setState((prev) => {
        const next: Record<string, PanelState> = { ...prev.panels };
        results.forEach((r, i) => {
          const id = ids[i];
          if (!id) return;
          next[id] =
            r.status === 'fulfilled'
              ? {
                  data: r.value.data as PanelData[PanelId],
                  origin: r.value.origin,
                  fetchedAt: now,
                  error: null,
                }
              : { ...prev.panels[id], error: messageOf(r.reason) };
        });
        return { panels: next, failures: count, lastAttemptAt: now };
      });
      schedule(nextRefreshDelay(failures, document.hidden));
    }

    const onVisibility = () => {
      if (document.hidden) schedule(REFRESH_HIDDEN_MS);
      else void cycle();
    };
    const onOnline = () => void cycle();

    void cycle();
    document.addEventListener('visibilitychange', onVisibility);
    window.addEventListener('online', onOnline);
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
      window.removeEventListener('online', onOnline);
    };
  }, [key, loaders]);

  return state;
}

/** Which panel shows: the next one every `intervalS` seconds. */
export function useRotation(count: number, intervalS: number): number {
  const [index, setIndex] = useState(0);
  useEffect(() => {
    if (count <= 1) return;
    const timer = setInterval(() => setIndex((i) => (i + 1) % count), intervalS * 1000);
    return () => clearInterval(timer);
  }, [count, intervalS]);
  return count > 0 ? index % count : 0;
}

/** The current time, refreshed every `everyMs` (for the clock and the data ages). */
export function useNow(everyMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

/** True after `ms` without pointer activity: the kiosk hides its cursor and buttons. */
export function useIdle(ms: number): boolean {
  const [idle, setIdle] = useState(false);
  useEffect(() => {
    let timer = setTimeout(() => setIdle(true), ms);
    const wake = () => {
      setIdle(false);
      clearTimeout(timer);
      timer = setTimeout(() => setIdle(true), ms);
    };
    const events = ['pointermove', 'pointerdown', 'keydown', 'touchstart'] as const;
    for (const e of events) window.addEventListener(e, wake, { passive: true });
    return () => {
      clearTimeout(timer);
      for (const e of events) window.removeEventListener(e, wake);
    };
  }, [ms]);
  return idle;
}

/** Keeps the screen on (Screen Wake Lock API) where the browser offers it; re-acquired when visible again. */
export function useWakeLock(): void {
  useEffect(() => {
    if (typeof navigator === 'undefined' || !('wakeLock' in navigator) || !navigator.wakeLock) return;
    let sentinel: WakeLockSentinel | null = null;
    let stopped = false;
    const acquire = async () => {
      if (document.hidden || (sentinel && !sentinel.released)) return;
      try {
        sentinel = await navigator.wakeLock.request('screen');
        if (stopped) await sentinel.release();
      } catch {
        /* refused (battery saver, permissions): the screen may sleep, nothing else to do */
      }
    };
    const onVisibility = () => {
      if (!document.hidden) void acquire();
    };
    void acquire();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      stopped = true;
      document.removeEventListener('visibilitychange', onVisibility);
      void sentinel?.release().catch(() => {});
    };
  }, []);
}

/** Fullscreen state and a toggle (Fullscreen API); `available` is false where the browser refuses it. */
export function useFullscreen(): { available: boolean; active: boolean; toggle: () => void } {
  const [active, setActive] = useState(() => typeof document !== 'undefined' && !!document.fullscreenElement);
  useEffect(() => {
    const onChange = () => setActive(!!document.fullscreenElement);
    document.addEventListener('fullscreenchange', onChange);
    return () => document.removeEventListener('fullscreenchange', onChange);
  }, []);
  const available = typeof document !== 'undefined' && document.fullscreenEnabled === true;
  const toggle = () => {
    if (document.fullscreenElement) void document.exitFullscreen().catch(() => {});
    else void document.documentElement.requestFullscreen?.().catch(() => {});
  };
  return { available, active, toggle };
}
