import { expect } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import type { E2e } from './harness.ts';

/**
 * Helpers for the wall-screen suite (issue 22): a wall context on a page clock, a probe that tells when the kiosk's
 * refresh has landed, the service worker's clock kept with the page's, and the server stopped and started again.
 */

export const MINUTE = 60_000;
export const WALL_VIEWPORT = { width: 1920, height: 1080 };

/** The kiosk's refresh delays (kiosk-config.ts): the visible cadence and the backoff steps. */
const REFRESH_DELAYS = [60_000, 5_000, 10_000, 20_000, 40_000, 80_000, 120_000];

/**
 * Installed after the page clock (so it wraps the clock's timers): counts the kiosk's refresh cycles — started by
 * `GET /api/displays/me/`, finished when the next refresh is scheduled — and the event listeners held on the page's
 * objects (one-shot and signal-bound ones aside, which go on their own, and IndexedDB's per-operation objects).
 */
function wallProbe(delays: number[]): void {
  type Waiter = () => void;
  const w = window as unknown as Record<string, unknown>;
  const probe = {
    started: 0,
    finished: 0,
    lastDelay: 0,
    listeners: 0,
    /** Listeners held per target kind and event type, for the failure messages. */
    held: {} as Record<string, number>,
    fetching: 0,
    waiters: [] as Waiter[],
  };
  const tally = (target: EventTarget, type: string, by: number) => {
    const kind = `${target.constructor.name}:${type}`;
    probe.held[kind] = (probe.held[kind] ?? 0) + by;
    if (probe.held[kind] === 0) delete probe.held[kind];
  };
  w.__wallProbe = probe;
  const setTimeoutBefore = window.setTimeout.bind(window);
  window.setTimeout = ((fn: TimerHandler, ms?: number, ...args: unknown[]) => {
    if (typeof ms === 'number' && delays.includes(ms)) {
      probe.finished += 1;
      probe.lastDelay = ms;
      for (const waiter of probe.waiters.splice(0)) waiter();
    }
    return setTimeoutBefore(fn, ms, ...args);
  }) as typeof window.setTimeout;
  const fetchBefore = window.fetch.bind(window);
  window.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url.includes('/api/displays/me/')) probe.started += 1;
    probe.fetching += 1;
    return fetchBefore(input, init).finally(() => {
      probe.fetching -= 1;
      for (const waiter of probe.waiters.splice(0)) waiter();
    });
  };
  const held = new WeakMap<EventTarget, Map<string, Set<unknown>>>();
  // The originals, called with each target as `this`.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const addBefore = EventTarget.prototype.addEventListener;
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const removeBefore = EventTarget.prototype.removeEventListener;
  const keyOf = (type: string, options: unknown) =>
    `${type}|${typeof options === 'boolean' ? options : !!(options as { capture?: boolean } | undefined)?.capture}`;
  EventTarget.prototype.addEventListener = function (type, listener, options) {
    const o = options as AddEventListenerOptions | undefined;
    // IndexedDB requests and transactions are one operation each, gone with it: not the page's listeners.
    const perOperation = this instanceof IDBRequest || this instanceof IDBTransaction;
    if (listener && !perOperation && !(typeof o === 'object' && (o.once || o.signal))) {
      const byType = held.get(this) ?? new Map<string, Set<unknown>>();
      held.set(this, byType);
      const key = keyOf(type, options);
      const set = byType.get(key) ?? new Set();
      byType.set(key, set);
      if (!set.has(listener)) {
        set.add(listener);
        probe.listeners += 1;
        tally(this, type, 1);
      }
    }
    return addBefore.call(this, type, listener, options);
  };
  EventTarget.prototype.removeEventListener = function (type, listener, options) {
    const set = held.get(this)?.get(keyOf(type, options));
    if (set?.delete(listener)) {
      probe.listeners -= 1;
      tally(this, type, -1);
    }
    return removeBefore.call(this, type, listener, options);
  };
}

/** What the wall shows after a step. */
export interface WallState {
  /** The page clock (ms) and its distance from real time. */
  now: number;
  offset: number;
  /** The `now` the wall rendered with (its header clock). */
  renderedNow: number;
  title: string;
  figures: string[];
  age: string;
  /** The panel's text, for the failure messages. */
  body: string;
  alarm: { level: string; text: string; role: string } | null;
  pairingCode: string | null;
  started: number;
  finished: number;
  lastDelay: number;
  listeners: number;
  timers: number;
}

export interface Counts {
  timers: number;
  listeners: number;
  /** The clock's pending timers (kind and delay) and the listeners per target and type, to say what changed. */
  timerKinds: string[];
  held: Record<string, number>;
}

export interface Wall {
  context: BrowserContext;
  page: Page;
  /** Runs the page clock `ms` (at most a refresh interval), then waits until a refresh it started has landed. */
  step(ms?: number): Promise<WallState>;
  state(): Promise<WallState>;
  /** Timers pending and listeners held once the page is quiet (no refresh nor request in flight). */
  counts(): Promise<Counts>;
}

/** A wall screen: its own context (1920×1080, not signed in) with the page clock installed, on /kiosk. */
export async function openWall(e2e: E2e): Promise<Wall> {
  const context = await e2e.context(WALL_VIEWPORT);
  await context.clock.install();
  await context.addInitScript(wallProbe, REFRESH_DELAYS);
  const page = await context.newPage();
  await page.goto('/kiosk');
  // The service worker serves the wall's reads (its cached copy during an outage): wait until it controls the page.
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 15_000 });
  let offset = 0;

  const state = () =>
    page.evaluate(async (): Promise<WallState> => {
      type Probe = { started: number; finished: number; lastDelay: number; listeners: number; waiters: (() => void)[] };
      const w = window as unknown as {
        __wallProbe: Probe;
        __pwClock: { controller: { countTimers(): number }; builtins: { Date: DateConstructor } };
      };
      const probe = w.__wallProbe;
      // A refresh started and not yet scheduled again: wait for it.
      while (probe.started > probe.finished) await new Promise<void>((resolve) => probe.waiters.push(resolve));
      // React renders on a MessageChannel task (not faked by the clock): let it run.
      for (let i = 0; i < 3; i++) {
        await new Promise<void>((resolve) => {
          const channel = new MessageChannel();
          channel.port1.onmessage = () => resolve();
          channel.port2.postMessage(null);
        });
      }
      const alarm = document.querySelector('[data-alarm]');
      const time = document.querySelector('.kiosk-clock time')?.getAttribute('datetime');
      return {
        now: Date.now(),
        offset: Date.now() - w.__pwClock.builtins.Date.now(),
        renderedNow: time ? Date.parse(time) : NaN,
        title: document.querySelector('h1.kiosk-title')?.textContent ?? '',
        figures: [...document.querySelectorAll('[data-panel] [data-figure]')].map((f) => f.textContent ?? ''),
        age: document.querySelector('[data-panel] .kiosk-age')?.textContent ?? '',
        body: document.querySelector('main')?.textContent?.slice(0, 300) ?? '',
        alarm: alarm
          ? {
              level: alarm.getAttribute('data-alarm') ?? '',
              text: alarm.textContent ?? '',
              role: alarm.getAttribute('role') ?? '',
            }
          : null,
        pairingCode: document.querySelector('[data-pairing-code]')?.textContent ?? null,
        started: probe.started,
        finished: probe.finished,
        lastDelay: probe.lastDelay,
        listeners: probe.listeners,
        timers: w.__pwClock.controller.countTimers(),
      };
    });

  /**
   * The service worker keeps the wall's answers with their date (its own clock, which the page clock does not move):
   * it is set to where the page's will be at the end of the step, so an answer's age reads the same on both sides.
   */
  const syncWorker = async (ahead: number) => {
    for (const worker of context.serviceWorkers())
      await worker.evaluate((target) => {
        const g = self as unknown as { __realNow?: () => number; __offset: number };
        if (!g.__realNow) {
          const realNow = Date.now.bind(Date);
          g.__realNow = realNow;
          Date.now = () => realNow() + g.__offset;
        }
        g.__offset = target;
      }, ahead);
  };

  const counts = () =>
    page.evaluate(async () => {
      type Probe = {
        started: number;
        finished: number;
        fetching: number;
        listeners: number;
        held: Record<string, number>;
        waiters: (() => void)[];
      };
      const w = window as unknown as {
        __wallProbe: Probe;
        __pwClock: { controller: { _timers: Map<number, { type: string; delay: number }> } };
      };
      const probe = w.__wallProbe;
      const yieldTask = () =>
        new Promise<void>((resolve) => {
          const channel = new MessageChannel();
          channel.port1.onmessage = () => resolve();
          channel.port2.postMessage(null);
        });
      for (let quiet = 0; quiet < 5;) {
        if (probe.started > probe.finished || probe.fetching > 0) {
          quiet = 0;
          await new Promise<void>((resolve) => probe.waiters.push(resolve));
        } else {
          quiet += 1;
          await yieldTask();
        }
      }
      const timers = [...w.__pwClock.controller._timers.values()];
      return {
        // Frame callbacks are one-shot and run at the next frame: the timers that can pile up are the others.
        timers: timers.filter((t) => t.type === 'Timeout' || t.type === 'Interval').length,
        listeners: probe.listeners,
        timerKinds: timers.map((t) => `${t.type} ${t.delay}`).sort(),
        held: { ...probe.held },
      };
    });

  return {
    context,
    page,
    state,
    counts,
    async step(ms = MINUTE) {
      expect(ms).toBeLessThanOrEqual(MINUTE);
      // A refresh still in flight (the first one after pairing) would time out inside the step: let it land first.
      await page.evaluate(async () => {
        const probe = (
          window as unknown as { __wallProbe: { started: number; finished: number; waiters: (() => void)[] } }
        ).__wallProbe;
        while (probe.started > probe.finished) await new Promise<void>((resolve) => probe.waiters.push(resolve));
      });
      await syncWorker(offset + ms);
      await context.clock.runFor(ms);
      const s = await state();
      offset = s.offset;
      return s;
    },
  };
}

/** Stops the in-process server answering (its listener and every open connection), and starts it again. */
export function serverSwitch(e2e: E2e): { stop(): Promise<void>; start(): Promise<void> } {
  return {
    async stop() {
      const server = e2e.t.app.server;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
    async start() {
      const server = e2e.t.app.server;
      const port = Number(new URL(e2e.baseURL).port);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
    },
  };
}
