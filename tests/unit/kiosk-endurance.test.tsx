import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { resetApiClient, setClientEnvironment } from '../../src/lib/api-client.ts';
import { session } from '../../src/lib/auth/session.ts';
import { kvDelete, kvSet } from '../../src/lib/storage.ts';
import { DISPLAY_CREDENTIAL_KEY, type Display } from '../../src/lib/display-device.ts';
import KioskPage from '../../src/app/kiosk/kiosk-page.tsx';
import { signIn } from './screen-helpers.tsx';
import { mountEachTest } from './support/mount.tsx';

/** A wall screen runs for weeks: every mount and every configuration change must leave no timer or listener. */

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

let display: Display;

function answer(url: URL, method: string): Response {
  if (method === 'POST')
    return json(
      { id: 'p1', code: 'K7QH4MZP', poll_secret: 's', expires_at: new Date(Date.now() + 600_000).toISOString() },
      201,
    );
  if (url.pathname.startsWith('/api/displays/pairings/')) return json({ status: 'pending' });
  if (url.pathname === '/api/displays/me/') return json({ display });
  if (url.pathname === '/api/vulnerabilities/vulnerabilities/')
    return json({ count: 0, next: null, previous: null, results: [] });
  if (url.pathname === '/api/vulnerabilities/sla-report/')
    return json({
      open_with_due_date: 0,
      overdue: 0,
      due_soon: 0,
      resolved_in_window: 0,
      resolved_on_time: 0,
      window_days: 90,
    });
  if (url.pathname === '/api/threats/summary/')
    return json({ threats_count: 0, by_severity: [], by_status: [], recent_threats: [] });
  if (url.pathname.startsWith('/api/celery/tasks/')) return json({ recent_tasks: [] });
  if (url.pathname === '/api/dashboard/summary/') return json({ vulnerabilities: { open: 1 } });
  if (url.pathname === '/api/dashboard/risks/')
    return json({ risks: { open: 1, projects: 1, initial: [{ likelihood: 2, impact: 2, count: 1 }], residual: [] } });
  if (url.pathname === '/api/dashboard/events/') return json({ results: [] });
  return json({ total_vulnerabilities: 1, severity_distribution: {}, vulnerability_trends: [] });
}

/** Listeners added to window and document, minus those removed: what a mount left behind. */
class ListenerLedger {
  private live = new Map<string, number>();
  private spies: MockInstance[] = [];

  start() {
    this.watch('window', window);
    this.watch('document', document);
  }

  private watch(name: string, target: EventTarget) {
    type Listener = EventListenerOrEventListenerObject | null;
    type Options = boolean | AddEventListenerOptions | EventListenerOptions | undefined;
    const add = target.addEventListener.bind(target);
    const remove = target.removeEventListener.bind(target);
    const ids = new WeakMap<object, number>();
    let next = 0;
    const key = (type: string, fn: Listener) => {
      const f = fn ?? {};
      if (!ids.has(f)) ids.set(f, next++);
      return `${name}:${type}:${ids.get(f)}`;
    };
    this.spies.push(
      vi.spyOn(target, 'addEventListener').mockImplementation((type: string, fn: Listener, options?: Options) => {
        // Adding the same listener twice is one listener (the DOM's rule).
        this.live.set(key(type, fn), 1);
        add(type, fn, options);
      }),
      vi.spyOn(target, 'removeEventListener').mockImplementation((type: string, fn: Listener, options?: Options) => {
        this.live.delete(key(type, fn));
        remove(type, fn, options);
      }),
    );
  }

  /** The listeners still attached, as 'target:type'. */
  leftover(): string[] {
    return [...this.live.keys()].map((k) => k.replace(/:\d+$/, ''));
  }

  added(): number {
    return this.spies.filter((_, i) => i % 2 === 0).reduce((n, s) => n + s.mock.calls.length, 0);
  }

  stop() {
    for (const s of this.spies) s.mockRestore();
    this.spies = [];
    this.live.clear();
  }
}

const ledger = new ListenerLedger();

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
  vi.setSystemTime(new Date('2025-06-02T08:05:00Z'));
  session.value = null;
  display = {
    id: 3,
    name: 'Mur',
    tenants: [{ id: 't1', name: 'Alpha' }],
    panels: ['vulnerabilities', 'act', 'kev', 'threats', 'tasks', 'overdue', 'risks', 'events', 'overview'],
    rotation_s: 10,
    theme: 'dark',
    text_size: 'normal',
    created_at: '2025-06-01T08:00:00Z',
    created_by: 'ana',
    last_seen_at: null,
    last_ip: null,
    version: null,
    revoked_at: null,
  };
  await kvDelete(DISPLAY_CREDENTIAL_KEY);
  setClientEnvironment({
    fetch: (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(
        typeof input === 'string' ? input : input instanceof URL ? input.href : input.url,
        'http://localhost',
      );
      return Promise.resolve(answer(url, (init?.method ?? 'GET').toUpperCase()));
    },
  });
});

afterEach(async () => {
  ledger.stop();
  session.value = null;
  resetApiClient();
  vi.useRealTimers();
  await kvDelete(DISPLAY_CREDENTIAL_KEY);
});

const view = mountEachTest();

async function run(ms: number) {
  for (let i = 0; i < 8; i++)
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1);
    });
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
  for (let i = 0; i < 8; i++)
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1);
    });
}

async function mountRunUnmount(url: string, ms: number) {
  window.history.replaceState(null, '', url);
  view.render(<KioskPage />);
  await run(ms);
  expect(vi.getTimerCount()).toBeGreaterThan(0);
  view.unmount();
  await run(0);
}

describe('the kiosk leaves nothing running behind it', () => {
  it('signed in: mounted and unmounted ten times, no timer nor window/document listener remains', async () => {
    signIn('analyst');
    ledger.start();
    for (let i = 0; i < 10; i++)
      await mountRunUnmount('/kiosk?panels=vulnerabilities,act,kev,threats,tasks,overdue,overview&interval=5', 65_000);
    expect(ledger.added()).toBeGreaterThan(0);
    expect(ledger.leftover()).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('pairing screen: mounted and unmounted ten times, nothing remains', async () => {
    ledger.start();
    for (let i = 0; i < 10; i++) await mountRunUnmount('/kiosk', 10_000);
    expect(ledger.leftover()).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('paired wall: mounted and unmounted ten times, unmounted even while starting, nothing remains', async () => {
    await kvSet(DISPLAY_CREDENTIAL_KEY, { token: 'vgd_x', display });
    ledger.start();
    for (let i = 0; i < 10; i++) await mountRunUnmount('/kiosk', 65_000);
    // Unmounted before the credential was even read.
    window.history.replaceState(null, '', '/kiosk');
    view.render(<KioskPage />);
    view.unmount();
    await run(120_000);
    expect(ledger.leftover()).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('paired wall: configuration changes at each refresh keep the same number of timers and listeners', async () => {
    await kvSet(DISPLAY_CREDENTIAL_KEY, { token: 'vgd_x', display });
    ledger.start();
    window.history.replaceState(null, '', '/kiosk');
    view.render(<KioskPage />);
    // Past the first minute: the cursor's idle timer has fired, one refresh timer, the rotation and the clock run.
    await run(61_000);
    const timers = vi.getTimerCount();
    expect(timers).toBe(3);
    const listeners = ledger.leftover().length;
    for (let i = 0; i < 20; i++) {
      display = {
        ...display,
        rotation_s: 5 + i,
        panels: i % 2 === 0 ? ['kev', 'act'] : ['overview', 'threats', 'tasks'],
        theme: i % 2 === 0 ? 'light' : 'dark',
        tenants:
          i % 3 === 0
            ? [{ id: 't1', name: 'Alpha' }]
            : [
                { id: 't1', name: 'Alpha' },
                { id: 't2', name: 'Beta' },
              ],
      };
      await run(60_000);
      expect(vi.getTimerCount()).toBe(timers);
      expect(ledger.leftover()).toHaveLength(listeners);
    }
    view.unmount();
    await run(0);
    expect(ledger.leftover()).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
