import { effect, signal, untracked, type ReadonlySignal } from '@preact/signals-react';
import { apiRequestWithOrigin } from '../../lib/api-client.ts';
import { currentTenantId, isAuthenticated, onAuthChange, onBeforeLogout, session } from '../../lib/auth/session.ts';
import { readEventStream, type ServerEvent } from './event-stream.ts';
import { notificationToast, refusedNotification, unreadCount } from './notifications-store.ts';
import {
  clearLocalNotifications,
  fetchUnreadCount,
  flushPendingWrites,
  rememberUnreadCount,
  restoreLocalReads,
  STREAM_PATH,
  toNotification,
  type AppNotification,
} from './notifications-api.ts';

export { notificationToast, refusedNotification, unreadCount };
export const streamConnected = signal(false);

/** spec §9: notifications live 60 s in the caches; the count is asked again as often. */
export const REFRESH_MS = 60_000;
export const BACKOFF_MS = [1_000, 2_000, 5_000, 10_000, 30_000, 60_000] as const;
/** The server sends a heartbeat every 25 s: this long without a byte means a dead connection. */
export const SILENCE_MS = 70_000;
/** The server closes the stream when the token expires; this only bounds a forgotten connection. */
const STREAM_MAX_MS = 12 * 60 * 60 * 1000;
/** A `notification` event is followed by `unread`; if not, the count is asked for after this delay. */
const COUNT_AFTER_EVENT_MS = 3_000;

// When the count was last known exactly (server, stream or a local change): older copies must not overwrite it.
let exactAt = 0;
let countTimer: ReturnType<typeof setTimeout> | undefined;

export function setUnreadCount(count: number): void {
  unreadCount.value = Math.max(0, count);
  exactAt = Date.now();
}

/** A local change (marked read here): the bell follows at once. */
export function adjustUnreadCount(delta: number): void {
  setUnreadCount(unreadCount.value + delta);
}

export async function refreshUnreadCount(): Promise<void> {
  if (!isAuthenticated.value) return;
  const askedAt = Date.now();
  try {
    const { count, origin } = await fetchUnreadCount();
    const newer =
      origin.source === 'network'
        ? askedAt >= exactAt
        : origin.source === 'cache'
          ? (origin.storedAt ?? 0) > exactAt
          : exactAt === 0;
    if (!newer || !isAuthenticated.value) return;
    unreadCount.value = count;
    if (origin.source === 'network') exactAt = Date.now();
  } catch {
    /* a refusal (401/403) is handled by the session layer; the bell keeps its number */
  }
}

type ArrivalListener = (notification: AppNotification) => void;
const arrivals = new Set<ArrivalListener>();
// What the stream brought lately, so a list read from a copy stored before (the 60 s cache) still shows it.
const recent: { at: number; notification: AppNotification }[] = [];
const RECENT_MAX = 50;

/** Notifications the stream brought after `since` (ms), newest first. */
export function arrivedSince(since: number): AppNotification[] {
  return recent.filter((r) => r.at > since).map((r) => r.notification);
}

/** Screens showing a list hear each notification the stream brings. */
export function onNotificationArrival(listener: ArrivalListener): () => void {
  arrivals.add(listener);
  return () => arrivals.delete(listener);
}

function handleEvent(event: ServerEvent): void {
  let data: unknown;
  try {
    data = JSON.parse(event.data);
  } catch {
    return;
  }
  if (event.event === 'unread') {
    const count = (data as { count?: unknown } | null)?.count;
    if (typeof count !== 'number') return;
    clearTimeout(countTimer);
    setUnreadCount(count);
    void rememberUnreadCount(count);
  } else if (event.event === 'notification') {
    const notification = toNotification(data);
    if (!notification) return;
    recent.unshift({ at: Date.now(), notification });
    recent.length = Math.min(recent.length, RECENT_MAX);
    for (const listener of arrivals) {
      try {
        listener(notification);
      } catch {
        /* one screen's failure must not stop the others */
      }
    }
    notificationToast.value = notification;
    clearTimeout(countTimer);
    countTimer = setTimeout(() => void refreshUnreadCount(), COUNT_AFTER_EVENT_MS);
  }
}

// The stream connection: one at a time, reconnected with backoff while it is wanted.
let connection: AbortController | undefined;
let retryTimer: ReturnType<typeof setTimeout> | undefined;
let attempt = 0;
let wanted: () => boolean = () => false;

function isByteStream(value: unknown): value is ReadableStream<Uint8Array> {
  return !!value && typeof (value as ReadableStream).getReader === 'function';
}

async function runStream(controller: AbortController): Promise<void> {
  const openedAt = Date.now();
  let heard = false;
  let silence: ReturnType<typeof setTimeout> | undefined;
  const kick = () => {
    clearTimeout(silence);
    silence = setTimeout(() => controller.abort(), SILENCE_MS);
  };
  try {
    // fetch with the Authorization header (EventSource cannot send it); a 401 refreshes the token and retries.
    const { data, origin } = await apiRequestWithOrigin<unknown>(STREAM_PATH, {
      responseType: 'stream',
      signal: controller.signal,
      timeoutMs: STREAM_MAX_MS,
      headers: { Accept: 'text/event-stream', 'Cache-Control': 'no-cache' },
      allowForbidden: true,
    });
    // Anything but the live stream (mock mode's empty answer, another backend's JSON) is no stream.
    if (origin.source !== 'network' || !isByteStream(data)) return;
    streamConnected.value = true;
    kick();
    await readEventStream(
      data,
      (event) => {
        heard = true;
        handleEvent(event);
      },
      { signal: controller.signal, onBytes: kick },
    );
  } catch {
    /* reconnected below, unless stopped */
  } finally {
    clearTimeout(silence);
    if (heard || Date.now() - openedAt > 30_000) attempt = 0;
  }
}

function backoffDelay(): number {
  const base = BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)]!;
  attempt++;
  // Spread reconnections so every tab (and every user after a restart) does not come back at the same instant.
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

function connect(): void {
  const controller = new AbortController();
  connection = controller;
  void runStream(controller).finally(() => {
    if (connection !== controller) return; // stopped or replaced meanwhile
    connection = undefined;
    streamConnected.value = false;
    if (!wanted()) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      reconcile();
    }, backoffDelay());
  });
}

function stopStream(): void {
  clearTimeout(retryTimer);
  retryTimer = undefined;
  const current = connection;
  connection = undefined;
  current?.abort();
  streamConnected.value = false;
  attempt = 0;
}

/** Opens the stream when it is wanted (signed in, online, not paused) and closes it when not. */
function reconcile(): void {
  if (!wanted()) stopStream();
  else if (!connection && !retryTimer) connect();
}

/** The count at once; pending writes sent again, then the count once more if any went through. */
async function flushAndRefresh(): Promise<void> {
  const first = refreshUnreadCount();
  const { sent, refused } = await flushPendingWrites().catch(() => ({ sent: 0, refused: [] as string[] }));
  if (refused.length > 0) refusedNotification.value = refused.join(' ');
  await first;
  if (sent > 0) await refreshUnreadCount();
}

let stopAll: (() => void) | undefined;

/**
 * Starts the bell's count (at start, every 60 s, on focus and on 'online') and the stream (while signed in and
 * online, unless `paused`, e.g. mock API mode), sends pending notification writes again, and drops every local
 * notification copy at sign-out. Returns the stop function; starting twice returns the same one.
 */
export function startNotifications({ paused }: { paused?: ReadonlySignal<boolean> } = {}): () => void {
  if (stopAll) return stopAll;
  const online = () => typeof navigator === 'undefined' || navigator.onLine !== false;
  wanted = () => isAuthenticated.value && online() && !(paused?.value ?? false);
  let activeUser: string | null = null;
  let activeTenant: string | undefined;

  const dispose = effect(() => {
    const user = isAuthenticated.value ? String(session.value?.profile.id ?? '') : null;
    const tenant = currentTenantId();
    void paused?.value;
    untracked(() => {
      if (user !== activeUser) {
        activeUser = user;
        activeTenant = tenant;
        stopStream();
        unreadCount.value = 0;
        exactAt = 0;
        recent.length = 0;
        notificationToast.value = null;
        refusedNotification.value = null;
        if (user) void restoreLocalReads().then(flushAndRefresh);
      } else if (user && tenant !== activeTenant) {
        // Pending writes are kept per tenant (they carry its X-Tenant-ID): the new one's go out now.
        activeTenant = tenant;
        void restoreLocalReads().then(flushAndRefresh);
      }
      reconcile();
    });
  });

  const onFocus = () => void refreshUnreadCount();
  const onOnline = () => {
    void flushAndRefresh();
    reconcile();
  };
  const onOffline = () => reconcile();
  window.addEventListener('focus', onFocus);
  window.addEventListener('online', onOnline);
  window.addEventListener('offline', onOffline);
  const timer = setInterval(() => void refreshUnreadCount(), REFRESH_MS);
  const offAuth = onAuthChange((signedIn) => {
    if (!signedIn) {
      stopStream();
      void clearLocalNotifications();
    }
  });
  // Last chance, while the session still exists, for writes that could not be sent.
  const offLogout = onBeforeLogout(async () => {
    stopStream();
    await flushPendingWrites().catch(() => undefined);
  });

  stopAll = () => {
    stopAll = undefined;
    dispose();
    stopStream();
    clearTimeout(countTimer);
    clearInterval(timer);
    window.removeEventListener('focus', onFocus);
    window.removeEventListener('online', onOnline);
    window.removeEventListener('offline', onOffline);
    offAuth();
    offLogout();
    wanted = () => false;
  };
  return stopAll;
}
