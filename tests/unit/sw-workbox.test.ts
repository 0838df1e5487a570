import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { NetworkFirst } from 'workbox-strategies/NetworkFirst.js';
import { StaleWhileRevalidate } from 'workbox-strategies/StaleWhileRevalidate.js';
import {
  markedHeaders,
  NETWORK_TIMEOUT_MS,
  networkVerdict,
  readStrategyOf,
  storedAtOf,
  storedHeaders,
} from '../../sw/policy.ts';
import { strategyFor } from '../../sw/read-strategies.ts';
import { handleApiGet } from '../../sw/api-layer.ts';
import { kvDelete, kvSet } from '../../src/lib/storage.ts';
import { SOURCE_HEADER, STORED_AT_HEADER } from '../../contract/sw-messages.ts';

describe('read strategy and network verdict (policy)', () => {
  it('a fresh copy is served by StaleWhileRevalidate; a stale one, or none, by NetworkFirst', () => {
    expect(readStrategyOf('fresh')).toBe('stale-while-revalidate');
    expect(readStrategyOf('stale')).toBe('network-first');
    expect(readStrategyOf('none')).toBe('network-first');
  });

  const json = (status: number) => ({ status, contentType: 'application/json', cacheControl: null });
  const ctx = (kept: boolean, sampleArea = false, partitioned = true) => ({ kept, sampleArea, partitioned });

  it.each([502, 503, 504])('a %i: the kept copy when there is one, else the answer as it is, never stored', (s) => {
    expect(networkVerdict(json(s), ctx(true))).toBe('use-kept');
    expect(networkVerdict(json(s), ctx(false))).toBe('pass');
    // Not a sample either, even on a sample area.
    expect(networkVerdict(json(s), ctx(false, true))).toBe('pass');
  });

  it('a 404 on a sample area becomes the sample; on a record it is the truth, kept', () => {
    expect(networkVerdict(json(404), ctx(true, true))).toBe('sample');
    expect(networkVerdict(json(404), ctx(false, false))).toBe('store');
  });

  it('stores cacheable answers only when the reader has a partition', () => {
    expect(networkVerdict(json(200), ctx(false))).toBe('store');
    expect(networkVerdict(json(200), ctx(false, false, false))).toBe('pass');
    expect(networkVerdict(json(401), ctx(true))).toBe('pass');
    expect(networkVerdict(json(500), ctx(true))).toBe('pass');
    expect(networkVerdict({ status: 200, contentType: 'text/html', cacheControl: null }, ctx(false))).toBe('pass');
    expect(
      networkVerdict({ status: 200, contentType: 'application/json', cacheControl: 'no-cache-sw' }, ctx(false)),
    ).toBe('pass');
  });

  it('marks an answer with its source, and a stored-at time only when given one', () => {
    const h = markedHeaders(new Headers({ [STORED_AT_HEADER]: '5', 'content-type': 'application/json' }), 'network');
    expect(h.get(SOURCE_HEADER)).toBe('network');
    expect(h.has(STORED_AT_HEADER)).toBe(false);
    expect(h.get('content-type')).toBe('application/json');
    expect(markedHeaders(new Headers(), 'cache', 1234).get(STORED_AT_HEADER)).toBe('1234');
  });

  it('keeps a copy without cookie, token or source mark, with its stored-at time', () => {
    const h = storedHeaders(
      new Headers({
        'set-cookie': 'sid=1',
        authorization: 'Bearer x',
        [SOURCE_HEADER]: 'network',
        'content-type': 'application/json',
      }),
      42,
    );
    expect([...h.keys()].map((k) => k.toLowerCase()).sort()).toEqual(['content-type', 'x-vigie-stored-at']);
    expect(storedAtOf(h)).toBe(42);
    expect(storedAtOf(new Headers())).toBe(0);
  });
});

describe('strategyFor', () => {
  it('builds the Workbox strategy the plan names, on the reader’s partition', () => {
    const swr = strategyFor({ strategy: 'stale-while-revalidate', cacheName: 'vigie-api:7:t1', kept: undefined });
    expect(swr).toBeInstanceOf(StaleWhileRevalidate);
    expect(swr.cacheName).toBe('vigie-api:7:t1');
    const nf = strategyFor({ strategy: 'network-first', cacheName: 'vigie-api:7:t1', kept: undefined });
    expect(nf).toBeInstanceOf(NetworkFirst);
    // Every hook the read layer relies on is there.
    const hooks = new Set(nf.plugins.flatMap((p) => Object.keys(p)));
    for (const hook of [
      'requestWillFetch',
      'fetchDidSucceed',
      'fetchDidFail',
      'cacheKeyWillBeUsed',
      'cacheWillUpdate',
      'cachedResponseWillBeUsed',
      'handlerDidError',
    ])
      expect(hooks).toContain(hook);
  });
});

// handleApiGet end to end, with Cache Storage and the network faked.

const PARTITION = 'vigie-api:7:t1';
const URL_LIST = 'http://localhost/api/projects/risks/';

interface Kept {
  body: ArrayBuffer;
  status: number;
  headers: [string, string][];
}
const partitions = new Map<string, Map<string, Kept>>();
/** Every cache.put, with the key as it was given. */
const puts: { cache: string; key: Request | string }[] = [];

function kept(name: string, url: string): Response | undefined {
  const k = partitions.get(name)?.get(url);
  return k && new Response(k.body.slice(0), { status: k.status, headers: k.headers });
}

async function keep(name: string, url: string, response: Response): Promise<void> {
  if (!partitions.has(name)) partitions.set(name, new Map());
  partitions.get(name)!.set(url, {
    body: await response.arrayBuffer(),
    status: response.status,
    headers: [...response.headers.entries()],
  });
}

async function seed(url: string, body: unknown, ageMs: number): Promise<number> {
  const storedAt = Date.now() - ageMs;
  await keep(
    PARTITION,
    url,
    new Response(JSON.stringify(body), {
      headers: { 'content-type': 'application/json', [STORED_AT_HEADER]: String(storedAt) },
    }),
  );
  return storedAt;
}

function json(body: unknown, headers: Record<string, string> = {}, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

async function get(url: string) {
  const waits: Promise<unknown>[] = [];
  const request = new Request(url, { headers: { Authorization: 'Bearer secret-token', 'X-Tenant-ID': 't1' } });
  const event = { request, waitUntil: (p: Promise<unknown>) => waits.push(p) } as unknown as FetchEvent;
  const answer = await handleApiGet(event);
  return { answer, settled: () => Promise.all(waits) };
}

type Handle = (request: Request, handler: unknown) => Promise<Response | undefined>;
const proto = (c: object) => c as unknown as { _handle: Handle };

beforeEach(async () => {
  partitions.clear();
  puts.length = 0;
  vi.stubGlobal('caches', {
    open: (name: string) =>
      Promise.resolve({
        match: (r: Request | string) => Promise.resolve(kept(name, typeof r === 'string' ? r : r.url)),
        put: async (r: Request | string, response: Response) => {
          puts.push({ cache: name, key: r });
          await keep(name, typeof r === 'string' ? r : r.url, response);
        },
      }),
    keys: () => Promise.resolve([...partitions.keys()]),
    delete: (name: string) => Promise.resolve(partitions.delete(name)),
  });
  await kvSet('session', { profile: { id: 7, current_tenant: { id: 't1' } } });
});

afterEach(async () => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  vi.useRealTimers();
  await kvDelete('session');
  await kvDelete(`api-last-write:${PARTITION}`);
});

describe('handleApiGet goes through workbox-strategies', () => {
  it('a fresh copy: StaleWhileRevalidate answers it at once, marked, and refreshes it behind', async () => {
    const swr = vi.spyOn(proto(StaleWhileRevalidate.prototype), '_handle');
    const nf = vi.spyOn(proto(NetworkFirst.prototype), '_handle');
    const storedAt = await seed(URL_LIST, { results: ['kept'] }, 1_000);
    let release!: () => void;
    const network = new Promise<void>((resolve) => (release = resolve));
    vi.stubGlobal('fetch', async () => {
      await network;
      return json({ results: ['new'] }, { 'set-cookie': 'sid=1' });
    });

    const { answer, settled } = await get(URL_LIST);
    // Answered before the network has said anything.
    expect(answer.headers.get(SOURCE_HEADER)).toBe('cache');
    expect(answer.headers.get(STORED_AT_HEADER)).toBe(String(storedAt));
    expect(await answer.json()).toEqual({ results: ['kept'] });
    expect(swr).toHaveBeenCalledTimes(1);
    expect(nf).not.toHaveBeenCalled();

    release();
    await settled();
    const refreshed = kept(PARTITION, URL_LIST)!;
    expect(await refreshed.json()).toEqual({ results: ['new'] });
    expect(storedAtOf(refreshed.headers)).toBeGreaterThanOrEqual(storedAt);
    expect(refreshed.headers.has('set-cookie')).toBe(false);
    expect(refreshed.headers.has(SOURCE_HEADER)).toBe(false);
  });

  it('a stale copy: NetworkFirst stores the answer under its URL alone, never the request’s token', async () => {
    const swr = vi.spyOn(proto(StaleWhileRevalidate.prototype), '_handle');
    const nf = vi.spyOn(proto(NetworkFirst.prototype), '_handle');
    await seed(URL_LIST, { results: ['old'] }, 10 * 60_000);
    vi.stubGlobal('fetch', () => Promise.resolve(json({ results: ['new'] })));

    const { answer } = await get(URL_LIST);

    expect(nf).toHaveBeenCalledTimes(1);
    expect(swr).not.toHaveBeenCalled();
    expect(answer.headers.get(SOURCE_HEADER)).toBe('network');
    expect(puts).toHaveLength(1);
    const key = puts[0]!.key;
    expect(typeof key === 'string' ? key : key.url).toBe(URL_LIST);
    if (typeof key !== 'string') expect(key.headers.has('authorization')).toBe(false);
    expect(kept(PARTITION, URL_LIST)!.headers.get(STORED_AT_HEADER)).toBe(answer.headers.get(STORED_AT_HEADER));
  });

  it('a write since the copy was stored: NetworkFirst even within the TTL', async () => {
    const nf = vi.spyOn(proto(NetworkFirst.prototype), '_handle');
    await seed(URL_LIST, { results: ['before the write'] }, 1_000);
    await kvSet(`api-last-write:${PARTITION}`, Date.now());
    vi.stubGlobal('fetch', () => Promise.resolve(json({ results: ['after'] })));

    const { answer } = await get(URL_LIST);

    expect(nf).toHaveBeenCalledTimes(1);
    expect(await answer.json()).toEqual({ results: ['after'] });
  });

  it('a network that does not answer within the timeout: aborted, and the kept copy answers', async () => {
    const storedAt = await seed(URL_LIST, { results: ['kept'] }, 10 * 60_000);
    let asked = false;
    let aborted = false;
    vi.stubGlobal('fetch', (request: Request) => {
      asked = true;
      return new Promise<Response>((_resolve, reject) =>
        request.signal.addEventListener('abort', () => {
          aborted = true;
          reject(new DOMException('The operation was aborted.', 'AbortError'));
        }),
      );
    });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });

    const pending = get(URL_LIST);
    // The session and partition are read first (IndexedDB, on real timers): the clock starts with the request.
    while (!asked) await new Promise((resolve) => setImmediate(resolve));
    await vi.advanceTimersByTimeAsync(NETWORK_TIMEOUT_MS - 1);
    expect(aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const { answer } = await pending;

    expect(aborted).toBe(true);
    expect(answer.headers.get(SOURCE_HEADER)).toBe('cache');
    expect(answer.headers.get(STORED_AT_HEADER)).toBe(String(storedAt));
  });

  it('no copy and no network: handlerDidError gives the area’s sample, else a network error', async () => {
    vi.stubGlobal('fetch', () => Promise.reject(new TypeError('Failed to fetch')));
    const sample = (await get('http://localhost/api/projects/')).answer;
    expect(sample.headers.get(SOURCE_HEADER)).toBe('sample');
    expect((await get(URL_LIST)).answer.type).toBe('error');
    expect(puts).toEqual([]);
  });

  it('signed out: the network’s answer, marked, kept nowhere', async () => {
    await kvDelete('session');
    vi.stubGlobal('fetch', () => Promise.resolve(json({ results: [] })));
    const { answer, settled } = await get(URL_LIST);
    await settled();
    expect(answer.headers.get(SOURCE_HEADER)).toBe('network');
    expect(answer.headers.has(STORED_AT_HEADER)).toBe(false);
    expect(puts).toEqual([]);
  });
});
