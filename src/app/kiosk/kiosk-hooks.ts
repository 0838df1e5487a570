import { useEffect, useRef, useState } from 'react';
import { ApiError, type DataOrigin } from '../../lib/api-client.ts';
import { messageOf } from '../../lib/error-message.ts';
import { nextRefreshDelay, type PanelId } from './kiosk-config.ts';
import type { Loaded } from './kiosk-data.ts';

export interface PanelState<T = unknown> {
  /** The last good answer: kept when later refreshes fail, so the wall never goes blank. */
  data?: T;
  origin?: DataOrigin;
  /** When the last good answer arrived (ms). */
  fetchedAt?: number;
  /** The last refresh's failure, null once it succeeds again. */
  error?: string | null;
  /** Its HTTP status (0: no answer). */
  errorStatus?: number;
}

export interface FeedState {
  /** Per slide (a panel, in a tenant for a paired screen), by its key. */
  panels: Record<string, PanelState>;
  /** Consecutive refreshes where every panel failed (backend unreachable); drives the retry backoff. */
  failures: number;
  lastAttemptAt: number | null;
  /** When the first refresh was asked (ms): the age of « nothing received yet ». */
  startedAt: number;
}

/** One refresh's answers per slide key; null when the wall has nothing more to show (a revoked screen). */
export type CycleResults = Record<string, PromiseSettledResult<Loaded<unknown>>> | null;

/** Loads every slide once, each with its own outcome. */
export async function loadSlides(
  slides: { key: string; panel: PanelId }[],
  load: (panel: PanelId, index: number) => Promise<unknown>,
): Promise<NonNullable<CycleResults>> {
  const results = await Promise.allSettled(slides.map((s, i) => load(s.panel, i)));
  return Object.fromEntries(slides.map((s, i) => [s.key, results[i]!])) as NonNullable<CycleResults>;
}

/** A refresh's failure in the wall's words: no answer at all reads « serveur injoignable », in French. */
export function failureText(reason: unknown): string {
  if (reason instanceof ApiError && reason.status === 0)
    return reason.kind === 'timeout' ? 'délai de réponse dépassé' : 'serveur injoignable';
  return messageOf(reason);
}

function statusOf(reason: unknown): number {
  return reason && typeof reason === 'object' && typeof (reason as { status?: unknown }).status === 'number'
    ? (reason as { status: number }).status
    : 0;
}

/**
 * Runs `cycle` (one refresh of every slide) at once, then every minute while the page is visible; hidden, nothing is
 * asked (no timer at all) until it shows again, and then at once. When every slide fails it retries with backoff
 * (5 s, 10 s… 2 min); back online, at once. `restartKey` starts afresh (another set of panels, another screen);
 * the latest `cycle` is always the one run, so a configuration read in a cycle applies at the next.
 */
export function useKioskFeed(cycle: () => Promise<CycleResults>, restartKey: string): FeedState {
  const [state, setState] = useState<FeedState>(() => ({
    panels: {},
    failures: 0,
    lastAttemptAt: null,
    startedAt: Date.now(),
  }));
  const latest = useRef(cycle);
  useEffect(() => {
    latest.current = cycle;
  });

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    let inFlight = false;
    let again = false;
    let failures = 0;

    const pause = () => {
      clearTimeout(timer);
      timer = undefined;
    };
    const schedule = (ms: number) => {
      pause();
      if (!stopped && !document.hidden) timer = setTimeout(() => void run(), ms);
    };

    async function run(): Promise<void> {
      if (stopped) return;
      if (inFlight) {
        again = true;
        return;
      }
      inFlight = true;
      pause();
      let results: CycleResults;
      try {
        results = await latest.current();
      } catch {
        results = {};
      }
      inFlight = false;
      if (stopped || results === null) return;
      const now = Date.now();
      const entries = Object.entries(results);
      failures = entries.length > 0 && entries.every(([, r]) => r.status === 'rejected') ? failures + 1 : 0;
      const count = failures;
      setState((prev) => {
        const next: Record<string, PanelState> = { ...prev.panels };
        for (const [key, r] of entries)
          next[key] =
            r.status === 'fulfilled'
              ? { data: r.value.data, origin: r.value.origin, fetchedAt: now, error: null }
              : { ...prev.panels[key], error: failureText(r.reason), errorStatus: statusOf(r.reason) };
        return { ...prev, panels: next, failures: count, lastAttemptAt: now };
      });
      if (again) {
        again = false;
        void run();
      } else schedule(nextRefreshDelay(failures));
    }

    const onVisibility = () => {
      if (document.hidden) pause();
      else void run();
    };
    const onOnline = () => {
      if (!document.hidden) void run();
    };

    void run();
    document.addEventListener('visibilitychange', onVisibility);
    window.addEventListener('online', onOnline);
    return () => {
      stopped = true;
      pause();
      document.removeEventListener('visibilitychange', onVisibility);
      window.removeEventListener('online', onOnline);
    };
  }, [restartKey]);

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
