import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import fc from 'fast-check';
import { openDB } from 'idb';
import {
  AUDIT_DB_NAME,
  AUDIT_EVENT,
  AuditBuffer,
  DEFAULT_AUDIT_ENDPOINT,
  planBeaconChunks,
  utf8Bytes,
  type AuditBeacon,
  type AuditBufferOptions,
  type AuditEvent,
  type AuditSend,
} from '../../src/features/audit/audit-buffer.ts';

const LIMIT = 64 * 1024;
const open: AuditBuffer[] = [];
let warn: MockInstance<typeof console.warn>;

function okSend() {
  return vi.fn<AuditSend>(() => Promise.resolve());
}

function acceptingBeacon() {
  return vi.fn<AuditBeacon>(() => true);
}

function makeBuffer(options: Partial<AuditBufferOptions> = {}): AuditBuffer {
  const buffer = new AuditBuffer({ send: okSend(), beacon: acceptingBeacon(), ...options });
  open.push(buffer);
  return buffer;
}

/** What is really in IndexedDB, read through a separate connection. */
async function storedEvents(): Promise<AuditEvent[]> {
  const db = await openDB(AUDIT_DB_NAME, 1);
  try {
    const rows = (await db.getAll('events')) as { event: AuditEvent }[];
    return rows.map((r) => r.event);
  } finally {
    db.close();
  }
}

async function logMany(
  buffer: AuditBuffer,
  count: number,
  details: (i: number) => Record<string, unknown> = (i) => ({ i }),
) {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const event = await buffer.log(AUDIT_EVENT.UI_ACTION, details(i));
    ids.push(event!.event_id);
  }
  return ids;
}

function deferred() {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

function sentIds(send: { mock: { calls: Parameters<AuditSend>[] } }): string[] {
  return send.mock.calls.flatMap(([events]) => events.map((e) => e.event_id));
}

interface BeaconBody {
  events: AuditEvent[];
  token?: string;
}

function beaconBodies(beacon: { mock: { calls: Parameters<AuditBeacon>[] } }): BeaconBody[] {
  return beacon.mock.calls.map(([, body]) => {
    expect(typeof body).toBe('string');
    return JSON.parse(body as string) as BeaconBody;
  });
}

function setVisibility(state: DocumentVisibilityState) {
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => state });
}

beforeEach(() => {
  warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
});

afterEach(async () => {
  for (const buffer of open.splice(0)) await buffer.close();
  vi.useRealTimers();
  vi.restoreAllMocks();
  setVisibility('visible');
  await new Promise<void>((resolve) => {
    const req = indexedDB.deleteDatabase(AUDIT_DB_NAME);
    req.onsuccess = () => resolve();
    req.onerror = () => resolve();
  });
});

describe('spec §3 event fields', () => {
  it('carries the session user and tenant when signed in', async () => {
    window.history.pushState({}, '', '/projects/7/risks');
    const buffer = makeBuffer({
      now: () => Date.UTC(2025, 2, 4, 10, 30, 0),
      getContext: () => ({ user_id: 7, username: 'manager', tenant_id: 't-1', tenant_name: 'Acme' }),
    });
    const event = await buffer.log(AUDIT_EVENT.LOGIN, { method: 'password', at: new Date(Date.UTC(2025, 0, 1)) });

    expect(event).toEqual({
      event_id: expect.stringMatching(/^[0-9a-f-]{32,36}$/),
      timestamp: '2025-03-04T10:30:00.000Z',
      event_type: 'login',
      severity: 'info',
      details: { method: 'password', at: '2025-01-01T00:00:00.000Z' }, // stored as the JSON that will be sent
      source: 'frontend',
      url: location.href,
      user_agent: navigator.userAgent,
      user_id: 7,
      username: 'manager',
      tenant_id: 't-1',
      tenant_name: 'Acme',
    });
    expect(event!.url).toMatch(/\/projects\/7\/risks$/);
    expect(await storedEvents()).toEqual([event]);
  });

  it('has no user or tenant fields when signed out', async () => {
    const buffer = makeBuffer({ getContext: () => null });
    const event = await buffer.log(AUDIT_EVENT.LOGIN_FAILED, { username: 'x' }, 'warning');
    expect(event).toMatchObject({ event_type: 'login_failed', severity: 'warning', source: 'frontend' });
    for (const key of ['user_id', 'username', 'tenant_id', 'tenant_name']) expect(event).not.toHaveProperty(key);
    expect(new Set([event!.event_id, (await buffer.info(AUDIT_EVENT.ROUTE_CHANGE))!.event_id]).size).toBe(2);
  });

  it("records 'access_denied' and 'token_expired' with their French descriptions", async () => {
    const buffer = makeBuffer();
    const denied = await buffer.accessDenied({ path: '/api/admin/users/' });
    const expired = await buffer.tokenExpired();
    expect(denied).toMatchObject({
      event_type: 'access_denied',
      details: { description: 'Accès refusé à la ressource', path: '/api/admin/users/' },
    });
    expect(expired).toMatchObject({
      event_type: 'token_expired',
      details: { description: 'Token expiré ou invalide' },
    });
  });
});

describe('minimum level', () => {
  it('drops debug by default and keeps info and above', async () => {
    const buffer = makeBuffer();
    expect(await buffer.debug(AUDIT_EVENT.API_REQUEST, { path: '/x' })).toBeUndefined();
    await buffer.info(AUDIT_EVENT.API_REQUEST);
    await buffer.critical(AUDIT_EVENT.API_ERROR);
    expect((await storedEvents()).map((e) => e.severity)).toEqual(['info', 'critical']);
  });

  it('honours a higher configured minimum', async () => {
    const buffer = makeBuffer({ minLevel: 'error' });
    await buffer.info(AUDIT_EVENT.UI_ACTION);
    await buffer.warning(AUDIT_EVENT.UI_ACTION);
    await buffer.error(AUDIT_EVENT.API_ERROR);
    expect((await storedEvents()).map((e) => e.severity)).toEqual(['error']);
  });
});

describe('persistence', () => {
  it('keeps events across a reload: a new instance sends what the old one stored', async () => {
    const before = makeBuffer();
    const ids = await logMany(before, 3); // no flush, no close: the page just goes away

    const send = okSend();
    const after = makeBuffer({ send });
    expect(await after.size()).toBe(3);
    expect(await after.flush()).toBe(3);
    expect(sentIds(send)).toEqual(ids);
    expect(await storedEvents()).toEqual([]);
  });

  it('beacons events left by the previous page at the first pagehide', async () => {
    const ids = await logMany(makeBuffer(), 2);
    const beacon = acceptingBeacon();
    const after = makeBuffer({ beacon });
    after.start();
    await after.settled();
    window.dispatchEvent(new Event('pagehide'));
    await after.settled();
    expect(beaconBodies(beacon).flatMap((b) => b.events.map((e) => e.event_id))).toEqual(ids);
  });
});

describe('sending through send()', () => {
  it('sends the 50 events when the 50th is logged, not before', async () => {
    const send = okSend();
    const buffer = makeBuffer({ send });
    const ids = await logMany(buffer, 49);
    await buffer.settled();
    expect(send).not.toHaveBeenCalled();

    ids.push(...(await logMany(buffer, 1)));
    await buffer.settled();
    expect(send).toHaveBeenCalledTimes(1);
    expect(send.mock.calls[0]![0]).toHaveLength(50);
    expect(sentIds(send)).toEqual(ids);
    expect(send.mock.calls[0]![1]).toEqual({ endpoint: DEFAULT_AUDIT_ENDPOINT, token: undefined });
    expect(await buffer.size()).toBe(0);
  });

  it('sends every 30 s once started', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    const send = okSend();
    const buffer = makeBuffer({ send, getToken: () => 'access.jwt.token' });
    buffer.start();
    const ids = await logMany(buffer, 3);

    vi.advanceTimersByTime(29_999);
    await buffer.settled();
    expect(send).not.toHaveBeenCalled();

    vi.advanceTimersByTime(1);
    await buffer.settled();
    expect(sentIds(send)).toEqual(ids);
    expect(send.mock.calls[0]![1]).toEqual({ endpoint: DEFAULT_AUDIT_ENDPOINT, token: 'access.jwt.token' });

    vi.advanceTimersByTime(30_000);
    await buffer.settled();
    expect(send).toHaveBeenCalledTimes(1); // nothing left, nothing sent
  });

  it('returns a failed batch to the buffer and sends it once on the next flush, in order', async () => {
    const send = vi
      .fn<AuditSend>()
      .mockRejectedValueOnce(new Error('503'))
      .mockImplementation(() => Promise.resolve());
    const buffer = makeBuffer({ send });
    const ids = await logMany(buffer, 3);

    expect(await buffer.flush()).toBe(0);
    expect((await storedEvents()).map((e) => e.event_id)).toEqual(ids);

    expect(await buffer.flush()).toBe(3);
    expect(await buffer.flush()).toBe(0);
    expect(send).toHaveBeenCalledTimes(2);
    expect(sentIds(send)).toEqual([...ids, ...ids]); // once failed, once delivered
    expect(await storedEvents()).toEqual([]);
  });

  it('a send that throws synchronously also keeps the events', async () => {
    const buffer = makeBuffer({
      send: () => {
        throw new Error('offline');
      },
    });
    await logMany(buffer, 2);
    expect(await buffer.flush()).toBe(0);
    expect(await buffer.size()).toBe(2);
  });

  it('drains a backlog larger than one batch in batches of maxEvents', async () => {
    let online = false;
    const send = vi.fn<AuditSend>(() => (online ? Promise.resolve() : Promise.reject(new Error('offline'))));
    const buffer = makeBuffer({ send, maxEvents: 4 });
    const ids = await logMany(buffer, 10);
    await buffer.settled(); // the automatic flushes from the 4th event on all failed: everything stays
    expect(send).toHaveBeenCalled();
    expect(await buffer.size()).toBe(10);

    online = true;
    const offlineCalls = send.mock.calls.length;
    expect(await buffer.flush()).toBe(10);
    const delivered = send.mock.calls.slice(offlineCalls);
    expect(delivered.map(([events]) => events.length)).toEqual([4, 4, 2]);
    expect(delivered.flatMap(([events]) => events.map((e) => e.event_id))).toEqual(ids);
  });

  it('two concurrent flushes never send an event twice', async () => {
    const gate = deferred();
    const send = vi.fn<AuditSend>(() => gate.promise);
    const buffer = makeBuffer({ send });
    const ids = await logMany(buffer, 5);

    const first = buffer.flush();
    const second = buffer.flush();
    expect(await second).toBe(0); // everything was claimed by the first
    gate.resolve();
    expect(await first).toBe(5);
    expect(sentIds(send)).toEqual(ids);
  });

  it('a flush during a slow send does not resend it, even after the lease ran out', async () => {
    let now = 1_000_000;
    const gate = deferred();
    const send = vi.fn<AuditSend>(() => gate.promise);
    const buffer = makeBuffer({ send, now: () => now, leaseMs: 10_000 });
    await logMany(buffer, 2);

    const slow = buffer.flush();
    await vi.waitFor(() => expect(send).toHaveBeenCalledTimes(1));
    now += 60_000;
    expect(await buffer.flush()).toBe(0);
    gate.resolve();
    expect(await slow).toBe(2);
    expect(send).toHaveBeenCalledTimes(1);
  });

  it('two tabs sharing the buffer do not send the same events', async () => {
    const gateA = deferred();
    const gateB = deferred();
    const sendA = vi.fn<AuditSend>(() => gateA.promise);
    const sendB = vi.fn<AuditSend>(() => gateB.promise);
    const tabA = makeBuffer({ send: sendA });
    const tabB = makeBuffer({ send: sendB });
    const ids = await logMany(tabA, 4);
    ids.push(...(await logMany(tabB, 4)));

    const flushes = Promise.all([tabA.flush(), tabB.flush()]);
    gateA.resolve();
    gateB.resolve();
    const [a, b] = await flushes;
    expect(a + b).toBe(8);
    expect([...sentIds(sendA), ...sentIds(sendB)].sort()).toEqual([...ids].sort());
  });

  it('events claimed by a page that crashed are sent again once their lease expires', async () => {
    let now = 1_000_000;
    const crashed = makeBuffer({ send: () => new Promise(() => undefined), now: () => now, leaseMs: 10_000 });
    const ids = await logMany(crashed, 2);
    void crashed.flush(); // never settles: the page died mid-send

    const send = okSend();
    const reloaded = makeBuffer({ send, now: () => now, leaseMs: 10_000 });
    await vi.waitFor(async () => {
      const db = await openDB(AUDIT_DB_NAME, 1);
      const rows = (await db.getAll('events')) as { lease_until?: number }[];
      db.close();
      expect(rows.every((r) => r.lease_until !== undefined)).toBe(true);
    });
    expect(await reloaded.flush()).toBe(0); // still leased
    now += 10_001;
    expect(await reloaded.flush()).toBe(2);
    expect(sentIds(send)).toEqual(ids);
    open.splice(open.indexOf(crashed), 1); // its pending flush never ends; do not wait for it
    crashed.stop();
  });

  it('never resends after a success, whatever path comes next', async () => {
    const send = okSend();
    const beacon = acceptingBeacon();
    const buffer = makeBuffer({ send, beacon });
    buffer.start();
    await logMany(buffer, 3);
    expect(await buffer.flush()).toBe(3);

    expect(await buffer.flush()).toBe(0);
    window.dispatchEvent(new Event('pagehide'));
    await buffer.settled();
    expect(beacon).not.toHaveBeenCalled();
    expect(await makeBuffer({ send }).flush()).toBe(0);
    expect(send).toHaveBeenCalledTimes(1);
  });
});

describe('pagehide and visibilitychange through sendBeacon', () => {
  const bulky = (i: number) => ({ i, note: `é${'x'.repeat(700)}😀`.repeat(3) });

  it('beacons everything, synchronously, in chunks each under 64 KiB that hold exactly the buffered events', async () => {
    const beacon = acceptingBeacon();
    const send = okSend();
    const buffer = makeBuffer({ beacon, send, maxEvents: 1000, getToken: () => 'access.jwt.token' });
    buffer.start();
    const ids = await logMany(buffer, 150, bulky);
    await buffer.settled();

    window.dispatchEvent(new Event('pagehide'));
    expect(beacon).toHaveBeenCalled(); // before any await: the page may be frozen right after the event
    await buffer.settled();

    const bodies = beaconBodies(beacon);
    expect(bodies.length).toBeGreaterThan(1);
    for (const [url, body] of beacon.mock.calls) {
      expect(url).toBe(DEFAULT_AUDIT_ENDPOINT);
      expect(utf8Bytes(body as string)).toBeLessThan(LIMIT);
    }
    for (const body of bodies) expect(body.token).toBe('access.jwt.token');
    expect(bodies.flatMap((b) => b.events.map((e) => e.event_id))).toEqual(ids);
    // Chunks are filled: the next chunk's first event would not have fitted in the previous one.
    for (let c = 0; c + 1 < beacon.mock.calls.length; c++) {
      const body = beacon.mock.calls[c]![1] as string;
      const next = JSON.stringify(bodies[c + 1]!.events[0]);
      expect(utf8Bytes(body) + 1 + utf8Bytes(next)).toBeGreaterThanOrEqual(LIMIT);
    }
    expect(await storedEvents()).toEqual([]);
    expect(send).not.toHaveBeenCalled();
  });

  it('beacons on visibilitychange only when hidden, and a following pagehide sends nothing twice', async () => {
    const beacon = acceptingBeacon();
    const buffer = makeBuffer({ beacon });
    buffer.start();
    const ids = await logMany(buffer, 3);

    setVisibility('visible');
    document.dispatchEvent(new Event('visibilitychange'));
    expect(beacon).not.toHaveBeenCalled();

    setVisibility('hidden');
    document.dispatchEvent(new Event('visibilitychange'));
    window.dispatchEvent(new Event('pagehide')); // fires right after, before the deletion committed
    await buffer.settled();
    expect(beacon).toHaveBeenCalledTimes(1);
    expect(beaconBodies(beacon)[0]!.events.map((e) => e.event_id)).toEqual(ids);
    expect(beaconBodies(beacon)[0]).not.toHaveProperty('token'); // signed out: no token

    setVisibility('visible'); // back to the tab, then away again: the delivered events are gone for good
    setVisibility('hidden');
    document.dispatchEvent(new Event('visibilitychange'));
    await buffer.settled();
    expect(beacon).toHaveBeenCalledTimes(1);
    expect(await buffer.size()).toBe(0);
  });

  it('keeps a refused chunk in the buffer and sends it later, once', async () => {
    const beacon = vi.fn<AuditBeacon>().mockReturnValueOnce(true).mockReturnValueOnce(false).mockReturnValue(true);
    const send = okSend();
    const buffer = makeBuffer({ beacon, send, maxEvents: 1000 });
    buffer.start();
    await logMany(buffer, 150, bulky);
    await buffer.settled();

    window.dispatchEvent(new Event('pagehide'));
    await buffer.settled();
    const bodies = beaconBodies(beacon);
    expect(bodies.length).toBeGreaterThanOrEqual(3);
    const refused = bodies[1]!.events.map((e) => e.event_id);
    expect((await storedEvents()).map((e) => e.event_id)).toEqual(refused);

    expect(await buffer.flush()).toBe(refused.length);
    expect(sentIds(send)).toEqual(refused);
    expect(await storedEvents()).toEqual([]);
  });

  it('uses the configured endpoint for both paths', async () => {
    const beacon = acceptingBeacon();
    const send = vi.fn<AuditSend>().mockRejectedValue(new Error('down'));
    const buffer = makeBuffer({ beacon, send, endpoint: 'https://audit.example/events/' });
    buffer.start();
    await logMany(buffer, 1);
    await buffer.flush();
    window.dispatchEvent(new Event('pagehide'));
    await buffer.settled();
    expect(send.mock.calls[0]![1].endpoint).toBe('https://audit.example/events/');
    expect(beacon.mock.calls[0]![0]).toBe('https://audit.example/events/');
  });

  it('stop() removes the listeners and the timer', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    const beacon = acceptingBeacon();
    const send = okSend();
    const buffer = makeBuffer({ beacon, send });
    buffer.start();
    buffer.start(); // idempotent: one timer, one pair of listeners
    await logMany(buffer, 2);
    buffer.stop();

    window.dispatchEvent(new Event('pagehide'));
    setVisibility('hidden');
    document.dispatchEvent(new Event('visibilitychange'));
    vi.advanceTimersByTime(120_000);
    await buffer.settled();
    expect(beacon).not.toHaveBeenCalled();
    expect(send).not.toHaveBeenCalled();
    expect(await buffer.size()).toBe(2);
  });
});

describe('oversize events', () => {
  it('truncates the details of an event too big for a beacon, with a warning, and still delivers it', async () => {
    const beacon = acceptingBeacon();
    const buffer = makeBuffer({ beacon, getToken: () => 't'.repeat(2000) });
    buffer.start();
    await buffer.info(AUDIT_EVENT.UI_ACTION, { i: 0 });
    const big = await buffer.error(AUDIT_EVENT.API_ERROR, { description: 'Réponse géante', body: 'é'.repeat(200_000) });
    await buffer.info(AUDIT_EVENT.UI_ACTION, { i: 2 });

    expect(big!.details).toEqual({
      truncated: true,
      original_bytes: expect.any(Number),
      description: 'Réponse géante',
    });
    expect(big!.details.original_bytes).toBeGreaterThan(400_000);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('truncated'));

    window.dispatchEvent(new Event('pagehide'));
    await buffer.settled();
    const events = beaconBodies(beacon).flatMap((b) => b.events);
    expect(events.map((e) => e.event_type)).toEqual(['ui_action', 'api_error', 'ui_action']);
    for (const [, body] of beacon.mock.calls) expect(utf8Bytes(body as string)).toBeLessThan(LIMIT);
    expect(await buffer.size()).toBe(0);
  });

  it('drops, with a warning, an event too big even without its details', async () => {
    window.history.pushState({}, '', `/search/${'a'.repeat(40_000)}`);
    const buffer = makeBuffer();
    expect(await buffer.info(AUDIT_EVENT.ROUTE_CHANGE)).toBeUndefined();
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('dropped'));
    expect(await buffer.size()).toBe(0);
    window.history.pushState({}, '', '/');
  });

  it('keeps the page as origin and path: a query string (a reset token) never enters the buffer', async () => {
    window.history.pushState({}, '', '/reset-password?token=S3CR3T#x');
    const buffer = makeBuffer();
    const event = await buffer.info(AUDIT_EVENT.ROUTE_CHANGE);
    expect(event?.url).toBe(`${location.origin}/reset-password`);
    window.history.pushState({}, '', '/');
  });

  it('does not loop when nothing fits next to the token: events wait for the fetch path', async () => {
    const beacon = acceptingBeacon();
    const send = okSend();
    const token = 'x'.repeat(LIMIT);
    const buffer = makeBuffer({ beacon, send, getToken: () => token });
    buffer.start();
    const ids = await logMany(buffer, 3);

    window.dispatchEvent(new Event('pagehide'));
    await buffer.settled();
    expect(beacon).not.toHaveBeenCalled();
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('too large for a beacon'));
    expect(await buffer.flush()).toBe(3);
    expect(sentIds(send)).toEqual(ids);
    expect(send.mock.calls[0]![1].token).toBe(token);
  });
});

describe('clear()', () => {
  it('empties the buffer, for this page and the next', async () => {
    const send = okSend();
    const beacon = acceptingBeacon();
    const buffer = makeBuffer({ send, beacon });
    buffer.start();
    await logMany(buffer, 3);
    await buffer.clear();
    expect(await buffer.flush()).toBe(0);
    window.dispatchEvent(new Event('pagehide'));
    await buffer.settled();
    expect(await makeBuffer({ send }).flush()).toBe(0);
    expect(send).not.toHaveBeenCalled();
    expect(beacon).not.toHaveBeenCalled();
  });

  it('does not bring back a batch whose send fails after the clear', async () => {
    const gate = deferred();
    const buffer = makeBuffer({ send: () => gate.promise });
    await logMany(buffer, 2);
    const flushing = buffer.flush();
    await buffer.clear();
    gate.reject(new Error('401'));
    expect(await flushing).toBe(0);
    expect(await buffer.size()).toBe(0);
    expect(warn).not.toHaveBeenCalled();
  });
});

describe('planBeaconChunks', () => {
  it('keeps each body strictly under the limit (a body of exactly the limit is split)', () => {
    const items = [
      { key: 1, json: '{"a":"é"}' },
      { key: 2, json: '{"b":2}' },
    ];
    const whole = utf8Bytes(JSON.stringify({ events: [{ a: 'é' }, { b: 2 }], token: 'tk' }));
    expect(planBeaconChunks(items, 'tk', whole + 1).chunks.map((c) => c.keys)).toEqual([[1, 2]]);
    expect(planBeaconChunks(items, 'tk', whole).chunks.map((c) => c.keys)).toEqual([[1], [2]]);
  });

  it('partitions any input, in order, into valid bodies under the limit', () => {
    const eventArb = fc.record({ i: fc.nat(), text: fc.string({ unit: 'grapheme', maxLength: 300 }) });
    fc.assert(
      fc.property(
        fc.array(eventArb, { maxLength: 40 }),
        fc.option(fc.string({ maxLength: 200 }), { nil: undefined }),
        fc.integer({ min: 20, max: 4000 }),
        (events, token, maxBytes) => {
          const items = events.map((e, key) => ({ key, json: JSON.stringify(e) }));
          const { chunks, tooLarge } = planBeaconChunks(items, token, maxBytes);
          const envelope = utf8Bytes(JSON.stringify({ events: [], token }));
          for (const chunk of chunks) {
            expect(chunk.keys.length).toBeGreaterThan(0);
            expect(utf8Bytes(chunk.body)).toBeLessThan(maxBytes);
            expect(JSON.parse(chunk.body)).toEqual({ events: chunk.keys.map((k) => events[k]), token });
          }
          const expectedTooLarge = items.filter((it) => envelope + utf8Bytes(it.json) >= maxBytes).map((it) => it.key);
          expect(tooLarge).toEqual(expectedTooLarge);
          expect(chunks.flatMap((c) => c.keys)).toEqual(items.map((it) => it.key).filter((k) => !tooLarge.includes(k)));
        },
      ),
      { numRuns: 300 },
    );
  });
});
