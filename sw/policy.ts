/**
 * The service worker's decisions as pure functions, so they are tested without a browser:
 * which /api requests may be cached, for how long, in which partition, and how answers are marked.
 */
import { SOURCE_HEADER, STORED_AT_HEADER, type DataSource } from '../contract/sw-messages.ts';

/** Authentication endpoints always go to the network and are never cached. */
const AUTH_PATTERNS = [
  /^\/api\/token(\/|$)/,
  /^\/api\/auth\//,
  /^\/api\/logout(\/|$)/,
  /^\/api\/register(\/|$)/,
  // The 2FA status is a plain read of the account, kept like any other (a screen offline still shows it).
  /^\/api\/accounts\/(2fa(?!\/status\/?$)|password|me|admin)(\/|$)/,
  /^\/api\/users\/me(\/|$)/,
  /^\/api\/user\/profile(\/|$)/,
  /^\/api\/v1\/(api\/)?users\/me(\/|$)/,
  /^\/api\/current-user(\/|$)/,
  /^\/api\/tenants\/user-data(\/|$)/,
  // Client audit events are owned by the audit buffer, never cached or queued here.
  /^\/api\/audit\/events(\/|$)/,
  // A wall screen's pairing (its poll hands over the device credential) and its own record (a renewed credential).
  /^\/api\/displays\/(pairings|me)(\/|$)/,
];

/** Collapses doubled slashes and a doubled /api prefix, as the client does. */
export function normalizePath(pathname: string): string {
  let p = pathname.replace(/\/{2,}/g, '/');
  while (p.startsWith('/api/api/')) p = p.slice(4);
  return p;
}

export function isApiPath(pathname: string): boolean {
  const p = normalizePath(pathname);
  return p === '/api' || p.startsWith('/api/');
}

export function isAuthEndpoint(pathname: string): boolean {
  const p = normalizePath(pathname);
  return AUTH_PATTERNS.some((re) => re.test(p));
}

/**
 * File downloads (exports, project documents' `/download/`) go straight to the network: a 100k-row export or a
 * 25 MB document has no place in Cache Storage, a stale copy of one would be a silent lie, and a document's
 * answer is `private, no-store`.
 */
export function isDownloadPath(pathname: string): boolean {
  return /\/(export|download)(\/|$)/.test(normalizePath(pathname));
}

/**
 * The notification stream (text/event-stream, open for minutes): straight to the network, never cached, never
 * replaced by sample data, and its answer handed over as it is so events arrive as the server sends them.
 */
export function isStreamPath(pathname: string): boolean {
  return /^\/api\/notifications\/stream(\/|$)/.test(normalizePath(pathname));
}

/** spec §9 cache durations, in seconds: notifications 60, tenants 300, health 60, default 30. */
export function ttlSeconds(pathname: string): number {
  const p = normalizePath(pathname);
  if (/^\/api\/notifications(\/|$)/.test(p)) return 60;
  if (/^\/api\/(admin\/)?tenants(\/|$)/.test(p)) return 300;
  if (/^\/api\/(system\/)?health(\/|$)/.test(p)) return 60;
  return 30;
}

export type Freshness = 'fresh' | 'stale' | 'none';

/** Within its TTL a cached answer is served at once (and revalidated); past it the network goes first. */
export function freshness(
  storedAt: number | undefined,
  now: number,
  ttl: number,
  /** When this user last changed something in this partition: older copies may be out of date, go to the network. */
  lastWriteAt = 0,
): Freshness {
  if (storedAt === undefined || !Number.isFinite(storedAt)) return 'none';
  if (storedAt <= lastWriteAt) return 'stale';
  return now - storedAt < ttl * 1000 && now >= storedAt ? 'fresh' : 'stale';
}

/** How long a read waits for the network's headers before the kept copy (or a sample) answers instead. */
export const NETWORK_TIMEOUT_MS = 8_000;

/** The Workbox strategy a read goes through (workbox-strategies' StaleWhileRevalidate or NetworkFirst). */
export type ReadStrategy = 'stale-while-revalidate' | 'network-first';

/**
 * A copy within its TTL answers at once and is refreshed behind it; a stale copy, or none, waits for the network
 * and is only the fallback when the network fails.
 */
export function readStrategyOf(state: Freshness): ReadStrategy {
  return state === 'fresh' ? 'stale-while-revalidate' : 'network-first';
}

/**
 * What the read layer does with the network's answer:
 * - 'use-kept': a 502/503/504 says nothing of the data; the kept copy answers (with its date) and nothing is stored;
 * - 'sample': a 404 on a spec §8 area (the backend does not serve it) becomes that area's sample, never stored;
 * - 'store': kept in the partition, and answered with the time it was stored;
 * - 'pass': answered as it is, kept nowhere (a 5xx with no copy kept, a 401, no partition…).
 */
export type NetworkVerdict = 'use-kept' | 'sample' | 'store' | 'pass';

export function networkVerdict(
  answer: { status: number; contentType: string | null; cacheControl: string | null },
  context: {
    /** A copy of this read is kept in the partition (whatever its age). */
    kept: boolean;
    /** The request belongs to a spec §8 sample area (sampleAreaOf is not null). */
    sampleArea: boolean;
    /** The reader has a partition (signed in, or a paired display): without one nothing is stored. */
    partitioned: boolean;
  },
): NetworkVerdict {
  if (isOverloadStatus(answer.status)) return context.kept ? 'use-kept' : 'pass';
  if (answer.status === 404 && context.sampleArea) return 'sample';
  if (context.partitioned && isCacheable(answer.status, answer.contentType, answer.cacheControl)) return 'store';
  return 'pass';
}

/** An answer's headers marked with where it came from; a stored-at time only beside a copy that is kept. */
export function markedHeaders(headers: Headers, source: Source, storedAt?: number): Headers {
  const marked = new Headers(headers);
  marked.set(SOURCE_HEADER, source);
  if (storedAt !== undefined) marked.set(STORED_AT_HEADER, String(storedAt));
  else marked.delete(STORED_AT_HEADER);
  return marked;
}

/** The headers a copy is kept with: no cookie nor token, no mark of its source (set when served), its stored-at time. */
export function storedHeaders(headers: Headers, storedAt: number): Headers {
  const kept = new Headers(headers);
  for (const h of UNCACHEABLE_HEADERS) kept.delete(h);
  kept.delete(SOURCE_HEADER);
  kept.set(STORED_AT_HEADER, String(storedAt));
  return kept;
}

/** When a kept copy was stored, as its header says (NaN or 0 when it says nothing usable: never fresh). */
export function storedAtOf(headers: Headers): number {
  return Number(headers.get(STORED_AT_HEADER));
}

export const API_CACHE_PREFIX = 'vigie-api';

/**
 * Cached answers are partitioned by signed-in user and tenant, so a shared screen never shows the previous
 * user's or tenant's data. Signed out: no partition, nothing is cached.
 */
export function partitionName(userId: string | number | undefined, tenantId: string | undefined): string | null {
  if (userId === undefined || userId === null || String(userId) === '') return null;
  const clean = (v: string) => v.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  return `${API_CACHE_PREFIX}:${clean(String(userId))}:${clean(tenantId ?? 'none')}`;
}

const DISPLAY_MARK = 'display~';

/**
 * A paired wall screen's answers (docs/displays.md) have partitions of their own, per display and tenant. The `~`
 * never survives `clean` in a user's partition name, so no person's partition can be named like a display's: a
 * device's answers are never served to a person, nor a person's to a device. A person's sign-in on the device drops
 * them (foreignPartitions), and so does a device forgetting its credential.
 */
export function displayPartitionName(
  displayId: string | number | undefined,
  tenantId: string | undefined,
): string | null {
  if (displayId === undefined || displayId === null || String(displayId) === '') return null;
  const clean = (v: string) => v.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  return `${API_CACHE_PREFIX}:${DISPLAY_MARK}${clean(String(displayId))}:${clean(tenantId ?? 'none')}`;
}

/** The display partitions to drop: every one but `keepDisplayId`'s (all of them without it). */
export function foreignDisplayPartitions(cacheNames: string[], keepDisplayId?: string | number): string[] {
  const prefix = `${API_CACHE_PREFIX}:${DISPLAY_MARK}`;
  // The tenant left empty: the partition's name up to its last colon.
  const own = keepDisplayId === undefined ? null : displayPartitionName(keepDisplayId, '');
  return cacheNames.filter((n) => n.startsWith(prefix) && (own === null || !n.startsWith(own)));
}

/** The partitions to drop when `userId` is the one signed in now (every other user's). */
export function foreignPartitions(cacheNames: string[], userId: string | number | undefined): string[] {
  const own =
    userId === undefined
      ? null
      : `${API_CACHE_PREFIX}:${String(userId)
          .replace(/[^A-Za-z0-9_-]/g, '_')
          .slice(0, 64)}:`;
  return cacheNames.filter((n) => n.startsWith(`${API_CACHE_PREFIX}:`) && (own === null || !n.startsWith(own)));
}

/** The marks the read layer puts on its answers (`X-Vigie-Source`); 'queued' is the write queue's. */
export type Source = Exclude<DataSource, 'queued'>;

/** Headers that must never be kept in Cache Storage. */
export const UNCACHEABLE_HEADERS = ['set-cookie', 'authorization'];

/**
 * Plain successful JSON answers are worth keeping, and so are a record's 404 and 403 (the areas' 404s became
 * samples before this is asked): offline, a project that does not exist still reads « introuvable ».
 */
export function isCacheable(status: number, contentType: string | null, cacheControl: string | null): boolean {
  if (status !== 200 && status !== 403 && status !== 404) return false;
  if (!contentType?.includes('application/json')) return false;
  // The server says no-store for its own HTTP caches; the SW keeps a partitioned, purgeable copy anyway,
  // except where the server marks data private to the moment.
  return !/\bno-cache-sw\b/.test(cacheControl ?? '');
}

/**
 * 502, 503 and 504 say the server (or the proxy before it) is overloaded or unreachable for a moment, not what the
 * data is: such an answer is never kept, the kept copy answers with its date where there is one, and otherwise the
 * answer goes on as it is (its `Retry-After` and French detail) — never sample data.
 */
export function isOverloadStatus(status: number): boolean {
  return status === 502 || status === 503 || status === 504;
}

/**
 * A queued write is stored without its Authorization header (no token at rest); this header keeps only its style
 * when it was not the default Bearer, for the replay.
 */
export const AUTH_SCHEME_HEADER = 'X-Vigie-Auth-Scheme';

/** The style a write was sent with, to store beside it: 'Token', or nothing for Bearer (and no header). */
export function storedAuthScheme(authorization: string | null): 'Token' | undefined {
  return /^token\s/i.test(authorization ?? '') ? 'Token' : undefined;
}

/**
 * The request a queued write is replayed with: the current token, in the style the write was sent with (spec §7:
 * Bearer or Token, whichever the backend asked for), without the queueable mark. Built from a clone: sending a
 * Request consumes its body, and the stored one must stay whole to go back in the queue when the network (or the
 * server) fails again — otherwise the write is lost.
 */
export function replayRequest(stored: Request, token: string, queueableHeader: string): Request {
  const headers = new Headers(stored.headers);
  const scheme = stored.headers.get(AUTH_SCHEME_HEADER) === 'Token' ? 'Token' : 'Bearer';
  headers.delete(AUTH_SCHEME_HEADER);
  headers.set('Authorization', `${scheme} ${token}`);
  headers.delete(queueableHeader);
  return new Request(stored.clone(), { headers });
}
