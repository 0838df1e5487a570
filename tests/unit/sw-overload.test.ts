import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isCacheable, isOverloadStatus } from '../../sw/policy.ts';
import { handleApiGet } from '../../sw/api-layer.ts';
import { sampleAreaOf } from '../../sw/samples.ts';
import { kvDelete, kvSet } from '../../src/lib/storage.ts';
import { SOURCE_HEADER, STORED_AT_HEADER } from '../../contract/sw-messages.ts';

const PARTITION = 'vigie-api:7:t1';
const BUSY = { detail: 'Serveur surchargé : réessayez dans un instant.', code: 'server_busy' };

/** The server shedding load (or a proxy's 502/504): JSON detail and Retry-After: 2. */
function busy(status = 503): Response {
  return new Response(JSON.stringify(BUSY), {
    status,
    headers: { 'content-type': 'application/json', 'retry-after': '2' },
  });
}

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/** A FetchEvent as far as handleApiGet uses it. */
function fetchEvent(url: string) {
  const waits: Promise<unknown>[] = [];
  const request = new Request(url, { headers: { 'X-Tenant-ID': 't1' } });
  return { event: { request, waitUntil: (p: Promise<unknown>) => waits.push(p) } as unknown as FetchEvent, waits };
}

interface Kept {
  body: ArrayBuffer;
  status: number;
  headers: [string, string][];
}

/** Cache Storage in memory: every match is a new Response, every put is recorded. */
const partitions = new Map<string, Map<string, Kept>>();
const puts: { cache: string; url: string; status: number }[] = [];

function partition(name: string): Map<string, Kept> {
  let p = partitions.get(name);
  if (!p) partitions.set(name, (p = new Map()));
  return p;
}

function keyOf(request: Request | string): string {
  return typeof request === 'string' ? request : request.url;
}

async function keep(name: string, url: string, response: Response): Promise<void> {
  partition(name).set(url, {
    body: await response.arrayBuffer(),
    status: response.status,
    headers: [...response.headers.entries()],
  });
}

function kept(name: string, url: string): Response | undefined {
  const k = partitions.get(name)?.get(url);
  return k && new Response(k.body.slice(0), { status: k.status, headers: k.headers });
}

/** Seeds the partition with a copy stored `ageMs` ago; returns its stored-at time. */
async function seed(url: string, body: unknown, ageMs: number): Promise<number> {
  const storedAt = Date.now() - ageMs;
  const response = json(body);
  response.headers.set(STORED_AT_HEADER, String(storedAt));
  await keep(PARTITION, url, response);
  return storedAt;
}

beforeEach(async () => {
  partitions.clear();
  puts.length = 0;
  vi.stubGlobal('caches', {
    open: (name: string) =>
      Promise.resolve({
        match: (request: Request | string) => Promise.resolve(kept(name, keyOf(request))),
        put: async (request: Request | string, response: Response) => {
          puts.push({ cache: name, url: keyOf(request), status: response.status });
          await keep(name, keyOf(request), response);
        },
      }),
    keys: () => Promise.resolve([...partitions.keys()]),
    delete: (name: string) => Promise.resolve(partitions.delete(name)),
  });
  await kvSet('session', { profile: { id: 7, current_tenant: { id: 't1' } } });
});

afterEach(async () => {
  vi.unstubAllGlobals();
  await kvDelete('session');
});

describe('isOverloadStatus', () => {
  it.each([502, 503, 504])('%i is an overload answer', (status) => {
    expect(isOverloadStatus(status)).toBe(true);
  });

  it.each([200, 304, 400, 401, 403, 404, 429, 500, 501, 505])('%i is not', (status) => {
    expect(isOverloadStatus(status)).toBe(false);
  });

  it.each([502, 503, 504])('a %i is never cacheable', (status) => {
    expect(isCacheable(status, 'application/json', null)).toBe(false);
  });
});

describe('handleApiGet when the server sheds load (502/503/504)', () => {
  const URL_LIST = 'http://localhost/api/projects/';

  it.each([502, 503, 504])(
    'a %i with a kept copy: the copy, marked as cache with its stored-at time',
    async (status) => {
      const storedAt = await seed(URL_LIST, { results: [{ id: 1, name: 'Kept' }] }, 5 * 60_000);
      const fetchMock = vi.fn((_request: Request) => Promise.resolve(busy(status)));
      vi.stubGlobal('fetch', fetchMock);
      const { event } = fetchEvent(URL_LIST);

      const answer = await handleApiGet(event);

      expect(fetchMock).toHaveBeenCalledTimes(1);
      expect(answer.status).toBe(200);
      expect(answer.headers.get(SOURCE_HEADER)).toBe('cache');
      expect(answer.headers.get(STORED_AT_HEADER)).toBe(String(storedAt));
      expect(answer.headers.get('retry-after')).toBeNull();
      expect(await answer.json()).toEqual({ results: [{ id: 1, name: 'Kept' }] });
    },
  );

  it.each(['http://localhost/api/projects/', 'http://localhost/api/notifications/notifications/'])(
    'no kept copy: the 503 itself with its Retry-After and detail, never a sample (%s)',
    async (url) => {
      // The URL is a spec §8 sample area: a 404 there becomes sample data.
      expect(sampleAreaOf('GET', new URL(url).pathname)).not.toBeNull();
      vi.stubGlobal('fetch', () => Promise.resolve(json({ detail: 'Not found.' }, 404)));
      expect((await handleApiGet(fetchEvent(url).event)).headers.get(SOURCE_HEADER)).toBe('sample');

      vi.stubGlobal('fetch', () => Promise.resolve(busy(503)));
      const answer = await handleApiGet(fetchEvent(url).event);

      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('2');
      expect(answer.headers.get(SOURCE_HEADER)).toBe('network');
      expect(answer.headers.get(STORED_AT_HEADER)).toBeNull();
      expect(await answer.json()).toEqual(BUSY);
    },
  );

  it('a 503 is never written to the cache: the kept copy stays as it was', async () => {
    const storedAt = await seed(URL_LIST, { results: [{ id: 1 }] }, 5 * 60_000);
    vi.stubGlobal('fetch', () => Promise.resolve(busy(503)));
    const { event, waits } = fetchEvent(URL_LIST);

    await handleApiGet(event);
    await Promise.all(waits);

    expect(puts).toEqual([]);
    const still = kept(PARTITION, URL_LIST)!;
    expect(still.status).toBe(200);
    expect(still.headers.get(STORED_AT_HEADER)).toBe(String(storedAt));
    expect(await still.json()).toEqual({ results: [{ id: 1 }] });
  });

  it('a 503 with nothing kept leaves the partition empty', async () => {
    vi.stubGlobal('fetch', () => Promise.resolve(busy(503)));
    const { event, waits } = fetchEvent(URL_LIST);

    await handleApiGet(event);
    await Promise.all(waits);

    expect(puts).toEqual([]);
    expect(kept(PARTITION, URL_LIST)).toBeUndefined();
  });

  it('a 503 while revalidating a fresh copy behind it: the copy answers and stays in the cache', async () => {
    const storedAt = await seed(URL_LIST, { results: [{ id: 2 }] }, 1_000);
    const fetchMock = vi.fn((_request: Request) => Promise.resolve(busy(503)));
    vi.stubGlobal('fetch', fetchMock);
    const { event, waits } = fetchEvent(URL_LIST);

    const answer = await handleApiGet(event);
    expect(answer.headers.get(SOURCE_HEADER)).toBe('cache');
    expect(answer.headers.get(STORED_AT_HEADER)).toBe(String(storedAt));
    expect(await answer.json()).toEqual({ results: [{ id: 2 }] });
    await Promise.all(waits);

    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(puts).toEqual([]);
    const still = kept(PARTITION, URL_LIST)!;
    expect(still.headers.get(STORED_AT_HEADER)).toBe(String(storedAt));
    expect(await still.json()).toEqual({ results: [{ id: 2 }] });
  });

  it('a 200 is still stored and marked network with its stored-at time', async () => {
    vi.stubGlobal('fetch', () => Promise.resolve(json({ results: [{ id: 3 }] })));
    const { event } = fetchEvent(URL_LIST);

    const answer = await handleApiGet(event);

    expect(answer.status).toBe(200);
    expect(answer.headers.get(SOURCE_HEADER)).toBe('network');
    expect(puts).toEqual([{ cache: PARTITION, url: URL_LIST, status: 200 }]);
    const stored = kept(PARTITION, URL_LIST)!;
    expect(stored.headers.get(STORED_AT_HEADER)).toBe(answer.headers.get(STORED_AT_HEADER));
    expect(Number(stored.headers.get(STORED_AT_HEADER))).toBeGreaterThan(0);
    expect(await stored.json()).toEqual({ results: [{ id: 3 }] });
    expect(await answer.json()).toEqual({ results: [{ id: 3 }] });
  });

  it('a 200 replaces a stale kept copy', async () => {
    const oldAt = await seed(URL_LIST, { results: [{ id: 1 }] }, 5 * 60_000);
    vi.stubGlobal('fetch', () => Promise.resolve(json({ results: [{ id: 4 }] })));

    const answer = await handleApiGet(fetchEvent(URL_LIST).event);

    expect(answer.headers.get(SOURCE_HEADER)).toBe('network');
    expect(puts).toHaveLength(1);
    const stored = kept(PARTITION, URL_LIST)!;
    expect(Number(stored.headers.get(STORED_AT_HEADER))).toBeGreaterThan(oldAt);
    expect(await stored.json()).toEqual({ results: [{ id: 4 }] });
  });
});
