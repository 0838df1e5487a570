import { apiRequestWithOrigin, ApiError, type DataOrigin } from '../../lib/api-client.ts';
import { db, kvDelete, kvGet, kvSet } from '../../lib/storage.ts';
import { currentTenantId, session } from '../../lib/auth/session.ts';
import { NOTIFICATION_LEVELS, type NotificationLevel } from '../../../contract/levels.ts';

/** docs/api-notifications.md (the levels are the contract's). */
export { NOTIFICATION_LEVELS, type NotificationLevel };

export interface AppNotification {
  id: number;
  title: string;
  created_at: string;
  read: boolean;
  body: string;
  level: NotificationLevel;
  link: string | null;
  kind: string;
  tenant_id: string;
  tenant_name: string;
}

export interface NotificationPage {
  results: AppNotification[];
  /** Every notification matching the query (all pages). */
  count: number;
  /** Unread ones in the query's tenant scope. */
  unread: number;
}

export interface NotificationQuery {
  /** A tenant's UUID; empty = every tenant the caller belongs to. */
  tenant?: string;
  unread?: boolean;
  page?: number;
  size?: number;
}

export interface NotificationInput {
  title: string;
  body?: string;
  level?: NotificationLevel;
  link?: string;
  /** A member's id; omitted = every active member of the current tenant. */
  user?: number | string;
}

export const NOTIFICATION_MESSAGES = {
  queued: 'Notification mise en file d’attente : elle sera envoyée au retour du réseau.',
  sent: 'Notification envoyée.',
  refused: 'Une notification mise en file d’attente a été refusée par le serveur',
} as const;

const BASE = '/notifications/notifications/';
export const STREAM_PATH = '/notifications/stream/';
/** The spec §8 local copies live under this prefix of the IndexedDB kv store (dropped at sign-out). */
const PREFIX = 'notifications:';
/** As long as the service worker keeps its queued writes (24 h): older pending writes are given up. */
const PENDING_MAX_AGE_MS = 24 * 60 * 60 * 1000;

function userId(): string | null {
  const id = session.value?.profile.id;
  return id === undefined || id === null ? null : String(id);
}

/** Reads fall back to the local copy on no answer, a server failure, or a 404 from a backend without the area. */
function readFallsBack(err: unknown): boolean {
  return !(err instanceof ApiError) || err.status === 0 || err.status >= 500 || err.status === 404;
}

const isLevel = (v: unknown): v is NotificationLevel =>
  typeof v === 'string' && (NOTIFICATION_LEVELS as readonly string[]).includes(v);

/** A safe in-app path: one leading '/', never '//', no backslash (the server checks it too). */
export function safeLink(link: unknown): string | null {
  return typeof link === 'string' && /^\/(?!\/)/.test(link) && !link.includes('\\') ? link : null;
}

/** Accepts what the server (or a stream event) sent, with defaults for missing optional fields. */
export function toNotification(raw: unknown): AppNotification | null {
  if (!raw || typeof raw !== 'object') return null;
  const r = raw as Record<string, unknown>;
  const id = Number(r.id);
  if (!Number.isFinite(id) || typeof r.title !== 'string') return null;
  return {
    id,
    title: r.title,
    created_at: typeof r.created_at === 'string' ? r.created_at : new Date().toISOString(),
    read: r.read === true,
    body: typeof r.body === 'string' ? r.body : '',
    level: isLevel(r.level) ? r.level : 'info',
    link: safeLink(r.link),
    kind: typeof r.kind === 'string' ? r.kind : 'manual',
    tenant_id: typeof r.tenant_id === 'string' ? r.tenant_id : '',
    tenant_name: typeof r.tenant_name === 'string' ? r.tenant_name : '',
  };
}

function toPage(data: unknown): NotificationPage | null {
  if (!data || typeof data !== 'object' || !Array.isArray((data as { results?: unknown }).results)) return null;
  const d = data as { results: unknown[]; count?: unknown; unread?: unknown };
  const results = d.results.map(toNotification).filter((n): n is AppNotification => n !== null);
  return {
    results,
    count: typeof d.count === 'number' ? d.count : results.length,
    unread: typeof d.unread === 'number' ? d.unread : results.filter((n) => !n.read).length,
  };
}

const emptyPage = (): NotificationPage => ({ results: [], count: 0, unread: 0 });

/** The app's mock API mode switch, stored where the service worker reads it (src/app/modes.ts). */
const MOCK_MODE_KEY = 'mock-api-mode';
const mockMode = async () => (await kvGet<boolean>(MOCK_MODE_KEY).catch(() => false)) === true;

// Read marks not yet confirmed by the server (queued, pending, or sent while a stale copy is shown): lists show
// them read at once, as spec §8 asks, whatever the copy they come from says.
const readIds = new Set<number>();
const readAllMarks: { tenant: string; before: string }[] = [];

function markedRead(n: AppNotification): boolean {
  if (n.read || readIds.has(n.id)) return true;
  const at = Date.parse(n.created_at);
  return readAllMarks.some((m) => (m.tenant === '' || m.tenant === n.tenant_id) && at <= Date.parse(m.before));
}

function withLocalReads(page: NotificationPage): NotificationPage {
  let flipped = 0;
  const results = page.results.map((n) => {
    if (n.read || !markedRead(n)) return n;
    flipped++;
    return { ...n, read: true };
  });
  return { ...page, results, unread: Math.max(0, page.unread - flipped) };
}

interface StoredList {
  storedAt: number;
  page: NotificationPage;
}

function listKey(user: string, q: NotificationQuery): string {
  return `${PREFIX}list:${user}:${q.tenant || 'all'}:${q.unread ? 'unread' : 'all'}:${q.page ?? 1}:${q.size ?? 50}`;
}

async function localOrSample(key: string | null): Promise<{ data: NotificationPage; origin: DataOrigin }> {
  const stored = key ? await kvGet<StoredList>(key).catch(() => undefined) : undefined;
  if (stored?.page)
    return { data: withLocalReads(stored.page), origin: { source: 'cache', storedAt: stored.storedAt } };
  return { data: emptyPage(), origin: { source: 'sample' } };
}

/**
 * GET the caller's notifications. spec §8: the network (or the service worker's copy); when that fails, or the service
 * worker could only offer sample data, the last list this user read here (marked cached); else empty results
 * marked as sample. A 400, 401 or 403 is an answer, not a failure: it is passed on.
 */
export async function listNotifications(
  query: NotificationQuery = {},
): Promise<{ data: NotificationPage; origin: DataOrigin }> {
  const user = userId();
  const key = user ? listKey(user, query) : null;
  let answer: { data: unknown; origin: DataOrigin };
  try {
    answer = await apiRequestWithOrigin<unknown>(BASE, {
      query: {
        tenant: query.tenant || undefined,
        unread: query.unread ? 'true' : undefined,
        page: query.page && query.page > 1 ? query.page : undefined,
        size: query.size,
      },
      allowForbidden: true,
    });
  } catch (err) {
    if (!readFallsBack(err)) throw err;
    return localOrSample(key);
  }
  const page = toPage(answer.data);
  // Mock API mode asked for sample data on purpose: it is shown as it is, not replaced by the local copy.
  if (answer.origin.source === 'sample' && page && (await mockMode())) return { data: page, origin: answer.origin };
  if (!page || answer.origin.source === 'sample') return localOrSample(key);
  if (answer.origin.source === 'network') {
    // What the server now says read needs no local mark any more.
    for (const n of page.results) if (n.read) readIds.delete(n.id);
    if (key) await kvSet(key, { storedAt: Date.now(), page } satisfies StoredList).catch(() => undefined);
  }
  return { data: withLocalReads(page), origin: answer.origin };
}

interface StoredCount {
  storedAt: number;
  count: number;
}

/** GET unread_count over every tenant of the caller; on failure the last count read here, else 0 (sample). */
export async function fetchUnreadCount(): Promise<{ count: number; origin: DataOrigin }> {
  const user = userId();
  const key = user ? `${PREFIX}unread:${user}` : null;
  const local = async (): Promise<{ count: number; origin: DataOrigin }> => {
    const stored = key ? await kvGet<StoredCount>(key).catch(() => undefined) : undefined;
    return stored
      ? { count: stored.count, origin: { source: 'cache', storedAt: stored.storedAt } }
      : { count: 0, origin: { source: 'sample' } };
  };
  try {
    const { data, origin } = await apiRequestWithOrigin<{ count?: unknown }>(`${BASE}unread_count/`, {
      allowForbidden: true,
    });
    if (origin.source === 'sample' || typeof data?.count !== 'number') return await local();
    if (origin.source === 'network') await rememberUnreadCount(data.count);
    return { count: data.count, origin };
  } catch (err) {
    if (!readFallsBack(err)) throw err;
    return local();
  }
}

/** Keeps the latest exact count (from the server or the stream) as the offline fallback. */
export async function rememberUnreadCount(count: number): Promise<void> {
  const user = userId();
  if (user)
    await kvSet(`${PREFIX}unread:${user}`, { storedAt: Date.now(), count } satisfies StoredCount).catch(() => {});
}

// Writes. Each carries its own Idempotency-Key, kept across every retry, so the server applies it once.

type PendingKind = 'read' | 'read_all' | 'create';

interface PendingWrite {
  key: string;
  kind: PendingKind;
  at: number;
  id?: number;
  /** mark_all_as_read's scope ('' = every tenant). */
  tenant?: string;
  before?: string;
  body?: NotificationInput;
}

export type WriteOutcome = 'sent' | 'queued' | 'pending' | 'refused';

/**
 * The writes that failed outright (no answer, server error: the service worker did not queue them, e.g. no service
 * worker yet or a 5xx), kept per user and tenant and sent again on the next load, on 'online' and before logout.
 */
function pendingKey(): string | null {
  const user = userId();
  return user ? `${PREFIX}pending:${user}:${currentTenantId() ?? 'none'}` : null;
}

async function readPending(): Promise<PendingWrite[]> {
  const key = pendingKey();
  if (!key) return [];
  const list = (await kvGet<PendingWrite[]>(key).catch(() => undefined)) ?? [];
  return list.filter((w) => Date.now() - w.at < PENDING_MAX_AGE_MS);
}

async function writePending(list: PendingWrite[]): Promise<void> {
  const key = pendingKey();
  if (!key) return;
  await (list.length > 0 ? kvSet(key, list) : kvDelete(key)).catch(() => {});
}

async function addPending(write: PendingWrite): Promise<void> {
  const list = await readPending();
  if (!list.some((w) => w.key === write.key)) list.push(write);
  await writePending(list);
}

/** Pending read marks count as read after a reload too. */
export async function restoreLocalReads(): Promise<void> {
  for (const w of await readPending()) {
    if (w.kind === 'read' && w.id !== undefined) readIds.add(w.id);
    if (w.kind === 'read_all' && w.before) readAllMarks.push({ tenant: w.tenant ?? '', before: w.before });
  }
}

function writeRequest(write: PendingWrite): { path: string; query?: Record<string, string>; body?: object } {
  if (write.kind === 'read') return { path: `${BASE}${write.id}/mark_as_read/` };
  if (write.kind === 'read_all')
    return { path: `${BASE}mark_all_as_read/`, ...(write.tenant ? { query: { tenant: write.tenant } } : {}) };
  return { path: BASE, body: write.body ?? {} };
}

/** Whether a failed write may be tried again: no answer, a server failure, a backend without the route. */
function retryable(write: PendingWrite, err: unknown): boolean {
  if (!(err instanceof ApiError)) return true;
  if (err.status === 0 || err.status >= 500 || err.status === 401) return true;
  if (err.status === 409 && (err.data as { code?: unknown } | undefined)?.code === 'idempotency_in_progress')
    return true;
  // mark_as_read's 404 means someone else's or an unknown id: final. Elsewhere it is another backend.
  return err.status === 404 && write.kind !== 'read';
}

async function attempt(write: PendingWrite): Promise<{ outcome: WriteOutcome; data?: unknown; error?: unknown }> {
  const { path, query, body } = writeRequest(write);
  try {
    const answer = await apiRequestWithOrigin<unknown>(path, {
      method: 'POST',
      queueable: true,
      headers: { 'Idempotency-Key': write.key },
      allowForbidden: true,
      ...(query ? { query } : {}),
      ...(body ? { body: body as Record<string, unknown> } : {}),
    });
    return answer.origin.source === 'queued' ? { outcome: 'queued' } : { outcome: 'sent', data: answer.data };
  } catch (err) {
    return { outcome: retryable(write, err) ? 'pending' : 'refused', error: err };
  }
}

/**
 * POST mark_as_read. spec §8: the notification counts as read at once whatever happens; the request is queueable (the
 * service worker replays it) and, when it failed outright, kept here and sent again later. Never rejects.
 */
export async function markAsRead(id: number): Promise<WriteOutcome> {
  readIds.add(id);
  const write: PendingWrite = { key: crypto.randomUUID(), kind: 'read', id, at: Date.now() };
  const { outcome } = await attempt(write);
  if (outcome === 'pending') await addPending(write);
  return outcome;
}

/** POST mark_all_as_read for `tenant` ('' = every tenant), with the same spec §8 rules as markAsRead. */
export async function markAllAsRead(tenant = ''): Promise<WriteOutcome> {
  const before = new Date().toISOString();
  readAllMarks.push({ tenant, before });
  const write: PendingWrite = { key: crypto.randomUUID(), kind: 'read_all', tenant, before, at: Date.now() };
  const { outcome } = await attempt(write);
  if (outcome === 'pending') await addPending(write);
  return outcome;
}

export type CreateResult =
  { queued: false; data: NotificationPage; message: string } | { queued: true; data: null; message: string };

/**
 * POST a notification (managers, admins, staff, superusers). spec §8: when it cannot reach the server it is queued
 * (the service worker's queue, or this module's pending list) and the form says so; a refusal (400, 403) rejects
 * with the server's message and `fields`.
 */
export async function createNotification(input: NotificationInput): Promise<CreateResult> {
  const write: PendingWrite = { key: crypto.randomUUID(), kind: 'create', body: input, at: Date.now() };
  const { outcome, data, error } = await attempt(write);
  if (outcome === 'refused') throw error;
  if (outcome === 'sent')
    return { queued: false, data: toPage(data) ?? emptyPage(), message: NOTIFICATION_MESSAGES.sent };
  if (outcome === 'pending') await addPending(write);
  return { queued: true, data: null, message: NOTIFICATION_MESSAGES.queued };
}

let flushing: Promise<{ sent: number; left: number; refused: string[] }> | undefined;

/**
 * Sends the pending writes again, oldest first, each with its own key; stops at the first that still cannot
 * reach the server. Returns the French messages of those refused for good (a queued notification the server
 * rejected), so the app can say so rather than lose them silently.
 */
export function flushPendingWrites(): Promise<{ sent: number; left: number; refused: string[] }> {
  flushing ??= (async () => {
    const list = await readPending();
    let sent = 0;
    const refused: string[] = [];
    while (list.length > 0) {
      const write = list[0]!;
      const { outcome, error } = await attempt(write);
      if (outcome === 'pending') break;
      list.shift();
      if (outcome === 'refused' && write.kind === 'create')
        refused.push(
          error instanceof ApiError
            ? `${NOTIFICATION_MESSAGES.refused} : ${error.message}`
            : NOTIFICATION_MESSAGES.refused,
        );
      else sent++;
    }
    await writePending(list);
    return { sent, left: list.length, refused };
  })().finally(() => (flushing = undefined));
  return flushing;
}

/** Sign-out: every local copy and pending write of notifications goes, and so do the in-memory read marks. */
export async function clearLocalNotifications(): Promise<void> {
  readIds.clear();
  readAllMarks.length = 0;
  try {
    const database = await db();
    const keys = (await database.getAllKeys('kv')).filter((k) => String(k).startsWith(PREFIX));
    await Promise.all(keys.map((k) => database.delete('kv', k)));
  } catch {
    /* storage unavailable: nothing was kept either */
  }
}

/** A tenant user to pick as recipient (administrators only may read the list; others type an id). */
export interface Recipient {
  id: number | string;
  username: string;
  first_name?: string;
  last_name?: string;
  email?: string;
}

export async function listRecipients(): Promise<Recipient[] | null> {
  try {
    const { data } = await apiRequestWithOrigin<{ results?: Recipient[] } | Recipient[]>('/admin/users/', {
      query: { page: 1, page_size: 100 },
      allowForbidden: true,
    });
    const list = Array.isArray(data) ? data : data?.results;
    return Array.isArray(list) ? list : null;
  } catch {
    return null;
  }
}
