/// <reference lib="webworker" />
import { kvGet, kvSet } from '../src/lib/storage.ts';
import { DISPLAY_CREDENTIAL_KEY } from '../src/lib/display-device.ts';
import {
  displayPartitionName,
  foreignDisplayPartitions,
  foreignPartitions,
  freshness,
  isAuthEndpoint,
  isDownloadPath,
  isStreamPath,
  normalizePath,
  partitionName,
  readStrategyOf,
  storedAtOf,
  ttlSeconds,
} from './policy.ts';
import { mockResponse } from './mock-api.ts';
import { readThroughWorkbox } from './read-strategies.ts';

/** What the SW needs to know of the page's session (IndexedDB 'vigie' → kv 'session'); never the tokens. */
interface SessionView {
  userId: string | number | undefined;
  tenantId: string | undefined;
}

interface StoredSession {
  profile?: { id?: string | number; current_tenant?: { id?: string } | null };
  tenantId?: string;
}

let lastUserId: string | undefined;
let lastDisplayId: string | undefined;

/** The stored device credential as the SW needs it: which display sends this token (docs/displays.md). */
interface StoredDisplay {
  token?: string;
  display?: { id?: string | number };
}

/**
 * The display a wall screen's request (`Authorization: Display <token>`) comes from, when the token is the one this
 * device keeps; undefined otherwise, and then nothing of it is cached nor served from a cache.
 */
async function displayOf(request: Request): Promise<string | number | undefined> {
  const auth = request.headers.get('Authorization') ?? '';
  if (!auth.startsWith('Display ')) return undefined;
  const stored = await kvGet<StoredDisplay>(DISPLAY_CREDENTIAL_KEY).catch(() => undefined);
  return stored?.token && stored.token === auth.slice('Display '.length) ? stored.display?.id : undefined;
}

/** Whether a request is a wall screen's (device credential) rather than a person's. */
function isDeviceRequest(request: Request): boolean {
  return (request.headers.get('Authorization') ?? '').startsWith('Display ');
}

async function currentSession(): Promise<SessionView> {
  const s = await kvGet<StoredSession>('session').catch(() => undefined);
  return { userId: s?.profile?.id, tenantId: s?.tenantId ?? s?.profile?.current_tenant?.id ?? undefined };
}

async function mockModeOn(): Promise<boolean> {
  return (await kvGet<boolean>('mock-api-mode').catch(() => false)) === true;
}

/**
 * Mock API mode: the answer made on the device for any /api request (reads and writes), marked as sample data;
 * null when mock mode is off or the request is an identity call that still goes to the server.
 */
export async function mockModeAnswer(request: Request): Promise<Response | null> {
  return (await mockModeOn()) ? mockResponse(request) : null;
}

const WRITE_KEY = 'api-last-write:';

async function lastWriteAt(cacheName: string): Promise<number> {
  return (await kvGet<number>(WRITE_KEY + cacheName).catch(() => undefined)) ?? 0;
}

/**
 * After a successful write, the cached reads of that user and tenant may show the state before it (a list still
 * holding the finding just resolved): they stop counting as fresh and the next read goes to the network first. They
 * stay in the cache as the offline fallback.
 */
export async function noteWrite(request: Request): Promise<void> {
  const session = await currentSession();
  const cacheName = partitionName(session.userId, request.headers.get('X-Tenant-ID') ?? session.tenantId);
  if (cacheName) await kvSet(WRITE_KEY + cacheName, Date.now()).catch(() => undefined);
}

/** Drops every API cache partition (logout, failed refresh, another user). */
export async function purgeApiCaches(keepUserId?: string | number): Promise<void> {
  const names = await caches.keys();
  await Promise.all(foreignPartitions(names, keepUserId).map((n) => caches.delete(n)));
}

/**
 * Where a read is kept: a person's answers per user and tenant, a wall screen's per display and tenant (never the
 * other's, whoever is signed in on the device); null: not kept.
 */
async function partitionOf(event: FetchEvent): Promise<string | null> {
  const request = event.request;
  if (isDeviceRequest(request)) {
    const displayId = await displayOf(request);
    if (displayId !== undefined && String(displayId) !== lastDisplayId) {
      lastDisplayId = String(displayId);
      event.waitUntil(
        caches
          .keys()
          .then((names) => Promise.all(foreignDisplayPartitions(names, displayId).map((n) => caches.delete(n))))
          .catch(() => undefined),
      );
    }
    return displayPartitionName(displayId, request.headers.get('X-Tenant-ID') ?? undefined);
  }
  const session = await currentSession();
  if (session.userId !== undefined && String(session.userId) !== lastUserId) {
    lastUserId = String(session.userId);
    event.waitUntil(purgeApiCaches(session.userId));
  }
  return partitionName(session.userId, request.headers.get('X-Tenant-ID') ?? session.tenantId);
}

/**
 * GET /api/…: auth endpoints, downloads and the notification stream to the network untouched. Others go through
 * Workbox (read-strategies.ts): a copy within its TTL from the reader's partition at once, revalidated behind it
 * (StaleWhileRevalidate), else the network first (NetworkFirst), and on failure the newest kept copy, else sample
 * data; on 404 for the spec §8 areas, sample data. A 502/503/504 (server shedding load, proxy) is never kept: the
 * kept copy answers with its date, else the 5xx goes on as it is — never sample data. Every answer says where it
 * came from.
 */
export async function handleApiGet(event: FetchEvent): Promise<Response> {
  const request = event.request;
  const pathname = normalizePath(new URL(request.url).pathname);
  // Mock mode first: nothing it answers may reach the network, the stream and downloads included.
  const mocked = await mockModeAnswer(request);
  if (mocked) return mocked;
  // The stream's body flows through unbuffered; downloads and identity calls are never cached.
  if (isAuthEndpoint(pathname) || isDownloadPath(pathname) || isStreamPath(pathname)) return fetch(request);

  const cacheName = await partitionOf(event);
  const kept = cacheName ? await (await caches.open(cacheName)).match(request.url) : undefined;
  const state = freshness(
    kept ? storedAtOf(kept.headers) : undefined,
    Date.now(),
    ttlSeconds(pathname),
    cacheName ? await lastWriteAt(cacheName) : 0,
  );
  return readThroughWorkbox(event, { strategy: readStrategyOf(state), cacheName, kept });
}
