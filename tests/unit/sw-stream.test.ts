import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isAuthEndpoint, isDownloadPath, isStreamPath, normalizePath } from '../../sw/policy.ts';
import { handleApiGet } from '../../sw/api-layer.ts';
import { kvDelete, kvSet } from '../../src/lib/storage.ts';
import { sampleAreaOf } from '../../sw/samples.ts';

describe('the notification stream in the service worker (policy)', () => {
  it.each([
    '/api/notifications/stream/',
    '/api/notifications/stream',
    '/api//notifications//stream/',
    '/api/api/notifications/stream/',
  ])('%s is the stream: network only, never cached, never sampled', (path) => {
    expect(isStreamPath(path)).toBe(true);
  });

  it.each([
    '/api/notifications/notifications/',
    '/api/notifications/notifications/unread_count/',
    '/api/notifications/streams/',
    '/api/notifications/',
    '/api/stream/',
    '/notifications/stream/',
  ])('%s is not the stream', (path) => {
    expect(isStreamPath(path)).toBe(false);
  });

  it('the rest of the notifications area keeps its cache and sample rules', () => {
    expect(sampleAreaOf('GET', normalizePath('/api/notifications/notifications/'))).toBe('notifications');
    expect(isAuthEndpoint('/api/notifications/stream/')).toBe(false);
    expect(isDownloadPath('/api/notifications/stream/')).toBe(false);
  });
});

/** A FetchEvent as far as handleApiGet uses it. */
function fetchEvent(url: string, headers: Record<string, string> = {}) {
  const waits: Promise<unknown>[] = [];
  const request = new Request(url, { headers });
  return { event: { request, waitUntil: (p: Promise<unknown>) => waits.push(p) } as unknown as FetchEvent, waits };
}

describe('the notification stream in the service worker (handleApiGet)', () => {
  const opened: string[] = [];

  beforeEach(async () => {
    opened.length = 0;
    // Any use of Cache Storage for the stream is a failure of this rule.
    vi.stubGlobal('caches', {
      open: (name: string) => {
        opened.push(name);
        return Promise.resolve({ match: () => Promise.resolve(undefined), put: () => Promise.resolve() });
      },
      keys: () => Promise.resolve([]),
      delete: () => Promise.resolve(true),
    });
    await kvSet('session', { profile: { id: 7, current_tenant: { id: 't1' } } });
  });

  afterEach(async () => {
    vi.unstubAllGlobals();
    await kvDelete('session');
    await kvDelete('mock-api-mode');
  });

  it('hands over the network’s own answer: same Response object, body unread, no cache opened', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('event: unread\ndata: {"count":2}\n\n'));
      },
    });
    const live = new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    const fetchMock = vi.fn((_request: Request) => Promise.resolve(live));
    vi.stubGlobal('fetch', fetchMock);
    const { event, waits } = fetchEvent('http://localhost/api/notifications/stream/', {
      Authorization: 'Bearer tok',
      'X-Tenant-ID': 't1',
    });
    const answer = await handleApiGet(event);
    expect(answer).toBe(live);
    expect(answer.bodyUsed).toBe(false);
    expect(answer.headers.get('x-vigie-source')).toBeNull();
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(fetchMock.mock.calls[0]![0].headers.get('authorization')).toBe('Bearer tok');
    expect(opened).toEqual([]);
    expect(waits).toEqual([]);
  });

  it('a network failure is the page’s to handle: no cached copy, no sample data', async () => {
    vi.stubGlobal('fetch', () => Promise.reject(new TypeError('Failed to fetch')));
    const { event } = fetchEvent('http://localhost/api/notifications/stream/');
    await expect(handleApiGet(event)).rejects.toThrow('Failed to fetch');
    expect(opened).toEqual([]);
  });

  it('in mock API mode nothing reaches the network: an empty 204 marked as sample', async () => {
    await kvSet('mock-api-mode', true);
    const fetchMock = vi.fn();
    vi.stubGlobal('fetch', fetchMock);
    const { event } = fetchEvent('http://localhost/api/notifications/stream/');
    const answer = await handleApiGet(event);
    expect(answer.status).toBe(204);
    expect(answer.headers.get('x-vigie-source')).toBe('sample');
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('the list next to it still goes through the cache layer (unchanged behaviour)', async () => {
    vi.stubGlobal('fetch', () =>
      Promise.resolve(new Response('{"results":[]}', { headers: { 'content-type': 'application/json' } })),
    );
    const { event } = fetchEvent('http://localhost/api/notifications/notifications/');
    const answer = await handleApiGet(event);
    expect(answer.headers.get('x-vigie-source')).toBe('network');
    expect(opened.length).toBeGreaterThan(0);
    expect(new Set(opened)).toEqual(new Set(['vigie-api:7:t1']));
  });
});
