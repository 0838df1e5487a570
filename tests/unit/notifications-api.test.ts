import { beforeEach, describe, expect, it } from 'vitest';
import { json, setupScreen, signIn } from './screen-helpers.tsx';
import { ApiError, setClientEnvironment } from '../../src/lib/api-client.ts';
import { db, kvDelete, kvGet, kvSet } from '../../src/lib/storage.ts';
import { session } from '../../src/lib/auth/session.ts';
import {
  clearLocalNotifications,
  createNotification,
  fetchUnreadCount,
  flushPendingWrites,
  listNotifications,
  markAllAsRead,
  markAsRead,
  NOTIFICATION_MESSAGES,
  restoreLocalReads,
  safeLink,
  toNotification,
} from '../../src/features/notifications/notifications-api.ts';

const screen = setupScreen();

interface Sent {
  method: string;
  url: URL;
  headers: Headers;
  body: unknown;
}
const sent: Sent[] = [];

function note(id: number, extra: Record<string, unknown> = {}) {
  return {
    id,
    title: `Alerte ${id}`,
    created_at: '2025-06-02T08:15:00Z',
    read: false,
    body: 'Texte',
    level: 'critical',
    link: '/projects/4?tab=tasks',
    kind: 'task_assigned',
    tenant_id: 't1',
    tenant_name: 'Acme',
    ...extra,
  };
}

const offline = () => {
  throw new TypeError('Failed to fetch');
};
const sampleEmpty = () => json({ results: [] }, 200, { 'x-vigie-source': 'sample' });
const queuedAnswer = () =>
  json({ detail: 'Modification enregistrée hors ligne', queued: true }, 202, { 'x-vigie-source': 'queued' });

beforeEach(async () => {
  await clearLocalNotifications();
  sent.length = 0;
  // Like the screen recorder, keeping the headers (Idempotency-Key, the queueable mark).
  setClientEnvironment({
    fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(String(input instanceof Request ? input.url : input), 'http://localhost');
      const method = (init?.method ?? 'GET').toUpperCase();
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : init?.body;
      sent.push({ method, url, headers: new Headers(init?.headers), body });
      return screen.handler(method, url, body);
    },
  });
});

const posts = (path: string) => sent.filter((c) => c.method === 'POST' && c.url.pathname === path);

describe('notification reads (spec §8 fallbacks)', () => {
  it('network ok: the server’s page, marked as network, and a local copy kept for this user', async () => {
    screen.handler = () => json({ results: [note(1), note(2, { read: true })], count: 2, unread: 1 });
    const { data, origin } = await listNotifications({ page: 1, size: 20 });
    expect(origin.source).toBe('network');
    expect(data.results.map((n) => n.id)).toEqual([1, 2]);
    expect(data).toMatchObject({ count: 2, unread: 1 });
    const call = sent[0]!;
    expect(call.url.pathname).toBe('/api/notifications/notifications/');
    expect(call.url.searchParams.get('size')).toBe('20');
    expect(call.url.searchParams.has('tenant')).toBe(false);
    const keys = await (await db()).getAllKeys('kv');
    expect(keys.some((k) => k.startsWith('notifications:list:1:all:'))).toBe(true);
  });

  it('a failure falls back to the last list this user read, marked as cached with its date', async () => {
    screen.handler = () => json({ results: [note(1)], count: 1, unread: 1 });
    await listNotifications({ unread: true });
    screen.handler = offline;
    const { data, origin } = await listNotifications({ unread: true });
    expect(origin.source).toBe('cache');
    expect(origin.storedAt).toBeGreaterThan(Date.now() - 60_000);
    expect(data.results.map((n) => n.title)).toEqual(['Alerte 1']);
  });

  it.each([
    ['a 500', () => json({ detail: 'boom' }, 500)],
    ['a 404 from another backend', () => json({ detail: 'Not found' }, 404)],
    ['no answer', offline],
  ])('%s with no local copy: empty results marked as sample', async (_label, handler) => {
    screen.handler = handler;
    const { data, origin } = await listNotifications();
    expect(origin).toEqual({ source: 'sample' });
    expect(data).toEqual({ results: [], count: 0, unread: 0 });
  });

  it('the service worker’s sample page gives way to the local copy when there is one', async () => {
    screen.handler = () => json({ results: [note(5)], count: 1, unread: 1 });
    await listNotifications();
    screen.handler = sampleEmpty;
    const { data, origin } = await listNotifications();
    expect(origin.source).toBe('cache');
    expect(data.results).toHaveLength(1);
  });

  it('in mock API mode the sample is what was asked for: shown as it is, not the local copy', async () => {
    screen.handler = () => json({ results: [note(5)], count: 1, unread: 1 });
    await listNotifications();
    await kvSet('mock-api-mode', true);
    try {
      screen.handler = sampleEmpty;
      const { data, origin } = await listNotifications();
      expect(origin.source).toBe('sample');
      expect(data.results).toEqual([]);
    } finally {
      await kvDelete('mock-api-mode');
    }
  });

  it('the local copy belongs to one user: another user signed in here does not see it', async () => {
    screen.handler = () => json({ results: [note(1)], count: 1, unread: 1 });
    await listNotifications();
    signIn('user');
    session.value = { ...session.value!, profile: { ...session.value!.profile, id: 2 } };
    screen.handler = offline;
    const { data, origin } = await listNotifications();
    expect(origin.source).toBe('sample');
    expect(data.results).toEqual([]);
  });

  it('a 403 is an answer, not a failure: passed on with the server’s message', async () => {
    screen.handler = () => json({ detail: 'Vous n’êtes pas membre de cette organisation.' }, 403);
    await expect(listNotifications({ tenant: 'other' })).rejects.toMatchObject({ status: 403 });
  });

  it('unread_count: network, then the last count read here, else 0 as sample', async () => {
    screen.handler = offline;
    expect(await fetchUnreadCount()).toEqual({ count: 0, origin: { source: 'sample' } });
    screen.handler = () => json({ count: 4 });
    expect(await fetchUnreadCount()).toEqual({ count: 4, origin: { source: 'network' } });
    screen.handler = offline;
    const local = await fetchUnreadCount();
    expect(local.count).toBe(4);
    expect(local.origin.source).toBe('cache');
  });

  it('accepts only safe in-app links', () => {
    expect(safeLink('/projects/4?tab=tasks')).toBe('/projects/4?tab=tasks');
    expect(safeLink('//evil.example/')).toBeNull();
    expect(safeLink('/\\evil')).toBeNull();
    expect(safeLink('https://evil.example/')).toBeNull();
    expect(safeLink('javascript:alert(1)')).toBeNull();
    expect(toNotification({ ...note(1), link: '//x' })?.link).toBeNull();
    expect(toNotification({ id: 'x', title: 'no id' })).toBeNull();
  });
});

describe('mark as read (spec §8: pretend success, nothing lost)', () => {
  it('sent at once: a queueable POST with its own Idempotency-Key', async () => {
    screen.handler = () => json({ id: 3, read: true });
    expect(await markAsRead(3)).toBe('sent');
    const [call] = posts('/api/notifications/notifications/3/mark_as_read/');
    expect(call!.headers.get('x-vigie-queueable')).toBe('1');
    expect(call!.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('offline with the service worker: queued there (answer marked queued), nothing kept here', async () => {
    screen.handler = queuedAnswer;
    expect(await markAsRead(3)).toBe('queued');
    expect((await flushPendingWrites()).sent).toBe(0);
  });

  it('a failure outright: still read in the lists, kept, and sent again with the same key', async () => {
    screen.handler = (method) => (method === 'POST' ? json({ detail: 'boom' }, 503) : json({}));
    expect(await markAsRead(3)).toBe('pending');
    const firstKey = posts('/api/notifications/notifications/3/mark_as_read/')[0]!.headers.get('idempotency-key');

    // The server (or a stale copy) still says unread: the list shows it read.
    screen.handler = () => json({ results: [note(3), note(4)], count: 2, unread: 2 });
    const { data } = await listNotifications();
    expect(data.results.find((n) => n.id === 3)?.read).toBe(true);
    expect(data.results.find((n) => n.id === 4)?.read).toBe(false);
    expect(data.unread).toBe(1);

    // Network back: the pending write goes out once more, with the same key, and is then forgotten.
    screen.handler = () => json({ id: 3, read: true });
    expect(await flushPendingWrites()).toEqual({ sent: 1, left: 0, refused: [] });
    const calls = posts('/api/notifications/notifications/3/mark_as_read/');
    expect(calls).toHaveLength(2);
    expect(calls[1]!.headers.get('idempotency-key')).toBe(firstKey);
    expect(await flushPendingWrites()).toEqual({ sent: 0, left: 0, refused: [] });
  });

  it('pending marks survive a reload (the in-memory marks are gone, the stored ones come back)', async () => {
    screen.handler = offline;
    await markAsRead(8);
    const stored = await kvGet<unknown[]>('notifications:pending:1:none');
    expect(stored).toHaveLength(1);
    await restoreLocalReads();
    screen.handler = () => json({ results: [note(8)], count: 1, unread: 1 });
    expect((await listNotifications()).data.results[0]!.read).toBe(true);
  });

  it('a 404 (someone else’s or unknown id) is final: not kept', async () => {
    screen.handler = () => json({ detail: 'Ressource introuvable.' }, 404);
    expect(await markAsRead(99)).toBe('refused');
    expect(await kvGet('notifications:pending:1:none')).toBeUndefined();
  });

  it('mark all: scope in the query, read at once in the lists, kept when it fails', async () => {
    screen.handler = offline;
    expect(await markAllAsRead('t1')).toBe('pending');
    const [call] = posts('/api/notifications/notifications/mark_all_as_read/');
    expect(call!.url.searchParams.get('tenant')).toBe('t1');
    screen.handler = () =>
      json({ results: [note(1), note(2, { tenant_id: 't2', tenant_name: 'Globex' })], count: 2, unread: 2 });
    const { data } = await listNotifications();
    expect(data.results.map((n) => n.read)).toEqual([true, false]);
    screen.handler = () => json({ updated: 1 });
    expect((await flushPendingWrites()).sent).toBe(1);
  });
});

describe('create (spec §8: queued when the network fails)', () => {
  const input = { title: 'Maintenance', body: 'Ce soir', level: 'warning' as const };

  it('sent: the created rows', async () => {
    screen.handler = () => json({ results: [note(1), note(2)], count: 2 }, 201);
    const result = await createNotification(input);
    expect(result.queued).toBe(false);
    expect(result.data?.count).toBe(2);
    expect(posts('/api/notifications/notifications/')[0]!.body).toEqual(input);
  });

  it('queued by the service worker: the form says so', async () => {
    screen.handler = queuedAnswer;
    expect(await createNotification(input)).toEqual({
      queued: true,
      data: null,
      message: 'Notification mise en file d’attente : elle sera envoyée au retour du réseau.',
    });
  });

  it('no answer at all: kept here, said queued, and sent later with the same key', async () => {
    screen.handler = offline;
    const result = await createNotification(input);
    expect(result).toMatchObject({ queued: true, message: NOTIFICATION_MESSAGES.queued });
    screen.handler = () => json({ results: [note(1)], count: 1 }, 201);
    expect((await flushPendingWrites()).sent).toBe(1);
    const calls = posts('/api/notifications/notifications/');
    expect(calls).toHaveLength(2);
    expect(calls[1]!.headers.get('idempotency-key')).toBe(calls[0]!.headers.get('idempotency-key'));
    expect(calls[1]!.body).toEqual(input);
  });

  it('a queued notification the server refuses later is reported, not dropped silently', async () => {
    screen.handler = offline;
    await createNotification(input);
    screen.handler = () => json({ detail: 'Destinataire inconnu.', fields: { user: ['Destinataire inconnu.'] } }, 400);
    const { refused, left } = await flushPendingWrites();
    expect(left).toBe(0);
    expect(refused).toEqual([`${NOTIFICATION_MESSAGES.refused} : Destinataire inconnu.`]);
  });

  it('a validation refusal rejects with the server’s fields', async () => {
    screen.handler = () =>
      json(
        { detail: 'Données invalides.', fields: { title: ['Le titre est obligatoire (200 caractères au plus).'] } },
        400,
      );
    const err = (await createNotification({ title: '' }).catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.fields.title).toEqual(['Le titre est obligatoire (200 caractères au plus).']);
  });
});

describe('sign-out', () => {
  it('drops every local notification copy and pending write', async () => {
    screen.handler = () => json({ results: [note(1)], count: 1, unread: 1 });
    await listNotifications();
    screen.handler = offline;
    await markAsRead(1);
    await clearLocalNotifications();
    const keys = await (await db()).getAllKeys('kv');
    expect(keys.filter((k) => k.startsWith('notifications:'))).toEqual([]);
  });
});
