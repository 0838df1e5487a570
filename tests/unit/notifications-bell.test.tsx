import { act } from 'react';
import { signal } from '@preact/signals-react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, settle, setupScreen, signIn } from './screen-helpers.tsx';
import { bellLabel, NotificationBell } from '../../src/features/notifications/notification-bell.tsx';
import {
  BACKOFF_MS,
  REFRESH_MS,
  startNotifications,
  unreadCount,
} from '../../src/features/notifications/notifications-state.ts';
import { clearLocalNotifications, markAsRead } from '../../src/features/notifications/notifications-api.ts';
import { clearSession, session } from '../../src/lib/auth/session.ts';
import { db } from '../../src/lib/storage.ts';
import { setClientEnvironment } from '../../src/lib/api-client.ts';
import { renderLayout } from './support/layout.tsx';

// The layout's update prompt needs the PWA plugin's virtual module, absent here.
vi.mock('../../src/app/update-prompt.ts', () => import('./support/update-prompt-stub.ts'));

const screen = setupScreen();

let count = 3;
let streamAnswer: () => Response = () => json({ detail: 'absent' }, 404);
const tokens: (string | null)[] = [];
let stop: (() => void) | undefined;

beforeEach(async () => {
  count = 3;
  tokens.length = 0;
  streamAnswer = () => json({ detail: 'absent' }, 404);
  unreadCount.value = 0;
  await clearLocalNotifications();
  screen.handler = (method, url) => {
    if (url.pathname === '/api/notifications/notifications/unread_count/') return json({ count });
    if (url.pathname === '/api/notifications/stream/') return streamAnswer();
    if (method === 'POST') return json({ id: 1, read: true });
    return json({ results: [], count: 0, unread: 0 });
  };
  // The recorder, keeping the Authorization header of the stream requests.
  setClientEnvironment({
    fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(String(input instanceof Request ? input.url : input), 'http://localhost');
      const method = (init?.method ?? 'GET').toUpperCase();
      if (url.pathname === '/api/notifications/stream/') tokens.push(new Headers(init?.headers).get('authorization'));
      screen.calls.push({ method, url, body: undefined });
      return screen.handler(method, url, undefined);
    },
  });
  Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => true });
  // Timers only: fake-indexeddb schedules with setImmediate, which must stay real.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
});

afterEach(() => {
  stop?.();
  stop = undefined;
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** Starts the unread count and the stream, and lets their first answers come. */
async function start(opts?: Parameters<typeof startNotifications>[0]) {
  stop = startNotifications(opts);
  await settle();
}

/** Fake milliseconds until the stream is opened once more (105 ms steps, letting answers settle in between). */
async function timeToNextOpen(limit = 120_000): Promise<number> {
  const before = streamOpens();
  let elapsed = 0;
  while (streamOpens() === before && elapsed < limit) {
    await act(async () => vi.advanceTimersByTimeAsync(100));
    await settle(); // 5 more fake milliseconds
    elapsed += 105;
  }
  return elapsed;
}

const countReads = () =>
  screen.calls.filter((c) => c.url.pathname === '/api/notifications/notifications/unread_count/').length;
const streamOpens = () => screen.calls.filter((c) => c.url.pathname === '/api/notifications/stream/').length;

function openStream() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
  });
  return {
    response: new Response(body, { headers: { 'content-type': 'text/event-stream' } }),
    send: (t: string) => controller.enqueue(new TextEncoder().encode(t)),
    close: () => controller.close(),
  };
}

describe('the bell', () => {
  it('names the count in French and shows it as a badge', async () => {
    expect(bellLabel(0)).toBe('Notifications : 0 non lue');
    expect(bellLabel(1)).toBe('Notifications : 1 non lue');
    expect(bellLabel(12)).toBe('Notifications : 12 non lues');
    unreadCount.value = 0;
    act(() => screen.root.render(<NotificationBell />));
    const link = screen.container.querySelector('a')!;
    expect(link.getAttribute('href')).toBe('/notifications');
    expect(link.querySelector('.nt-bell-badge')).toBeNull();
    act(() => void (unreadCount.value = 150));
    expect(link.getAttribute('aria-label')).toBe('Notifications : 150 non lues');
    expect(link.querySelector('.nt-bell-badge')!.textContent).toBe('99+');
    expect(link.querySelector('.nt-bell-badge')!.getAttribute('aria-hidden')).toBe('true');
  });

  it('in the layout for signed-in users: one link to the notifications, « Blog » in the menu', async () => {
    signIn('admin');
    count = 2;
    await renderLayout(screen);
    const links = [...screen.container.querySelectorAll('a')];
    const named = links.filter((a) => (a.getAttribute('aria-label') ?? a.textContent ?? '').includes('Notifications'));
    expect(named).toHaveLength(1);
    expect(named[0]!.getAttribute('aria-label')).toBe('Notifications : 2 non lues');
    const nav = screen.container.querySelector('nav.topnav')!;
    const labels = [...nav.querySelectorAll('a')].map((a) => a.textContent);
    expect(labels).toContain('Blog');
    expect(labels.indexOf('Blog')).toBe(labels.indexOf('Journal d’audit') - 1);
    expect(labels).not.toContain('Notifications');
  });

  it('not there when signed out', async () => {
    session.value = null;
    await renderLayout(screen);
    expect(screen.container.querySelector('a.nt-bell')).toBeNull();
    expect(countReads()).toBe(0);
    expect(streamOpens()).toBe(0);
  });
});

describe('the unread count and the stream', () => {
  it('asks for the count at start, every 60 s, and on focus', async () => {
    await start();
    expect(unreadCount.value).toBe(3);
    expect(countReads()).toBe(1);
    count = 5;
    await act(async () => vi.advanceTimersByTimeAsync(REFRESH_MS));
    await settle();
    expect(countReads()).toBe(2);
    expect(unreadCount.value).toBe(5);
    count = 6;
    act(() => void window.dispatchEvent(new Event('focus')));
    await settle();
    expect(unreadCount.value).toBe(6);
  });

  it('sends pending marks again at start and when the network returns', async () => {
    screen.handler = () => {
      throw new TypeError('Failed to fetch');
    };
    await markAsRead(7);
    const marks = () => screen.calls.filter((c) => c.url.pathname.endsWith('/7/mark_as_read/')).length;
    expect(marks()).toBe(1);
    screen.handler = (_m, url) =>
      url.pathname.endsWith('unread_count/') ? json({ count: 0 }) : json({ id: 7, read: true });
    await start();
    expect(marks()).toBe(2);
    // Sent: nothing left for the 'online' event.
    act(() => void window.dispatchEvent(new Event('online')));
    await settle();
    expect(marks()).toBe(2);
  });

  it('reconnects with backoff and the current token after the server closes the stream', async () => {
    let current = openStream();
    streamAnswer = () => current.response;
    await start();
    expect(streamOpens()).toBe(1);
    current.send('event: unread\ndata: {"count":9}\n\n');
    await settle();
    expect(unreadCount.value).toBe(9);

    // The token was refreshed meanwhile; the server ends the stream (token expiry).
    session.value = { ...session.value!, tokens: { ...session.value!.tokens, access_token: 'tok2' } };
    const first = current;
    current = openStream();
    first.close();
    await settle();
    expect(streamOpens()).toBe(1);
    // A stream that carried events starts the backoff over: back within about a second.
    expect(await timeToNextOpen()).toBeLessThan(BACKOFF_MS[1] * 1.2);
    expect(tokens).toEqual(['Bearer tok', 'Bearer tok2']);
  });

  it('backs off more after each failed attempt', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5); // no jitter
    await start();
    expect(streamOpens()).toBe(1);
    const first = await timeToNextOpen();
    const second = await timeToNextOpen();
    const third = await timeToNextOpen();
    // Measured in 105 ms steps: within 10 % of each delay.
    const near = (ms: number, delay: number) => Math.abs(ms - delay) <= delay * 0.1;
    expect(near(first, BACKOFF_MS[0]), `${first}`).toBe(true);
    expect(near(second, BACKOFF_MS[1]), `${second}`).toBe(true);
    expect(near(third, BACKOFF_MS[2]), `${third}`).toBe(true);
    expect(streamOpens()).toBe(4);
  });

  it('no stream while offline or paused (mock API mode); it opens when that ends', async () => {
    Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => false });
    const paused = signal(false);
    await start({ paused });
    expect(streamOpens()).toBe(0);
    Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => true });
    paused.value = true;
    act(() => void window.dispatchEvent(new Event('online')));
    await settle();
    expect(streamOpens()).toBe(0);
    act(() => void (paused.value = false));
    await settle();
    expect(streamOpens()).toBe(1);
  });

  it('sign-out stops the stream, resets the bell and drops the local copies', async () => {
    const live = openStream();
    streamAnswer = () => live.response;
    await start();
    screen.handler = (_m, url) => {
      if (url.pathname.endsWith('unread_count/')) return json({ count });
      if (url.pathname === '/api/notifications/stream/') return live.response;
      throw new TypeError('Failed to fetch');
    };
    await markAsRead(4); // kept as a pending write
    expect(unreadCount.value).toBe(3);
    await act(async () => clearSession());
    await settle();
    expect(unreadCount.value).toBe(0);
    const keys = await (await db()).getAllKeys('kv');
    expect(keys.filter((k) => k.startsWith('notifications:'))).toEqual([]);
    await act(async () => vi.advanceTimersByTimeAsync(BACKOFF_MS.at(-1)! * 2));
    expect(streamOpens()).toBe(1);
  });
});
