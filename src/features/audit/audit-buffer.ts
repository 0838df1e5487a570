import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import {
  AUDIT_DESCRIPTIONS,
  AUDIT_EVENT,
  DEFAULT_MIN_LEVEL,
  levelRank,
  type AuditContext,
  type AuditDetails,
  type AuditEvent,
  type AuditEventType,
  type AuditSeverity,
} from './audit-events.ts';
import { planBeaconChunks, utf8Bytes, type BeaconItem } from './beacon-chunks.ts';

export * from './audit-events.ts';
export { planBeaconChunks, utf8Bytes } from './beacon-chunks.ts';

export const DEFAULT_AUDIT_ENDPOINT = '/api/audit/events/';
export const AUDIT_DB_NAME = 'vigie-audit';
const STORE = 'events';

interface StoredAuditEvent {
  event: AuditEvent;
  /** Claimed by a flush until this time (ms); lets two tabs share the buffer without sending twice. */
  lease_until?: number;
}

interface AuditDb extends DBSchema {
  events: { key: number; value: StoredAuditEvent };
}

/** Normal path: resolves on a 2xx, rejects otherwise. The app wires it to its API client (Bearer token). */
export type AuditSend = (
  events: AuditEvent[],
  request: { endpoint: string; token: string | undefined },
) => Promise<unknown>;

/** navigator.sendBeacon's contract: false when the browser refuses to queue the body. */
export type AuditBeacon = (url: string, body: Blob | string) => boolean;

export interface AuditBufferOptions {
  send: AuditSend;
  /** Remote URL for both paths (spec §7: configurable). */
  endpoint?: string;
  /** spec §9: a flush starts when this many events wait; also the size of one fetch batch. */
  maxEvents?: number;
  /** spec §9: auto-send period once start() is called. */
  flushIntervalMs?: number;
  /** spec §9: events below this level are dropped. */
  minLevel?: AuditSeverity;
  /** Every beacon body stays strictly under this many UTF-8 bytes. */
  maxBeaconBytes?: number;
  /**
   * An event larger than this (UTF-8 JSON) has its details replaced by a truncation marker when logged, so it can
   * always travel by beacon next to the token. Default: half of maxBeaconBytes.
   */
  maxEventBytes?: number;
  /** How long a flush owns the events it claimed; after a crash they become sendable again. */
  leaseMs?: number;
  now?: () => number;
  getContext?: () => AuditContext | null | undefined;
  /** The current access token; sent in the beacon body because sendBeacon cannot set headers. */
  getToken?: () => string | undefined;
  beacon?: AuditBeacon;
  dbName?: string;
}

function defaultBeacon(url: string, body: Blob | string): boolean {
  if (typeof navigator === 'undefined' || typeof navigator.sendBeacon !== 'function') return false;
  return navigator.sendBeacon(url, body);
}

function randomId(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  // randomUUID only exists in secure contexts; plain http (a LAN dev server) still needs an id.
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** What IndexedDB stores and the server receives are the same JSON: Dates become strings, functions vanish. */
function toJsonDetails(details: AuditDetails): AuditDetails {
  try {
    const json = JSON.stringify(details);
    if (json === undefined) return {};
    const parsed: unknown = JSON.parse(json);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as AuditDetails)
      : { value: parsed };
  } catch {
    return { unserializable: true };
  }
}

/**
 * The client audit buffer (spec §3, §4, §9): events are written to IndexedDB before log() resolves, and leave by
 * `send` (at maxEvents, every flushIntervalMs) or by `beacon` on pagehide / hidden visibility. Delivery is at least
 * once: an event is deleted only after its send or beacon succeeded, and `event_id` lets the server drop the rare
 * duplicate (a page killed between a beacon and the deletion).
 */
export class AuditBuffer {
  readonly endpoint: string;
  private readonly sendEvents: AuditSend;
  private readonly maxEvents: number;
  private readonly flushIntervalMs: number;
  private readonly minLevel: AuditSeverity;
  private readonly maxBeaconBytes: number;
  private readonly maxEventBytes: number;
  private readonly leaseMs: number;
  private readonly now: () => number;
  private readonly getContext: () => AuditContext | null | undefined;
  private readonly getToken: () => string | undefined;
  private readonly beacon: AuditBeacon;
  private readonly dbName: string;

  private dbPromise: Promise<IDBPDatabase<AuditDb>> | undefined;
  /** Stored events this page knows of, so pagehide can call sendBeacon without waiting for IndexedDB. */
  private readonly known = new Map<number, AuditEvent>();
  /** Keys being sent by this page; a concurrent flush or beacon skips them even if their lease ran out. */
  private readonly inFlight = new Set<number>();
  private readonly background = new Set<Promise<unknown>>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private listening = false;

  constructor(options: AuditBufferOptions) {
    this.sendEvents = options.send;
    this.endpoint = options.endpoint ?? DEFAULT_AUDIT_ENDPOINT;
    this.maxEvents = options.maxEvents ?? 50;
    this.flushIntervalMs = options.flushIntervalMs ?? 30_000;
    this.minLevel = options.minLevel ?? DEFAULT_MIN_LEVEL;
    this.maxBeaconBytes = options.maxBeaconBytes ?? 64 * 1024;
    this.maxEventBytes = options.maxEventBytes ?? Math.floor(this.maxBeaconBytes / 2);
    this.leaseMs = options.leaseMs ?? 120_000;
    this.now = options.now ?? (() => Date.now());
    this.getContext = options.getContext ?? (() => null);
    this.getToken = options.getToken ?? (() => undefined);
    this.beacon = options.beacon ?? defaultBeacon;
    this.dbName = options.dbName ?? AUDIT_DB_NAME;
  }

  /** Records an event (dropped below minLevel). Resolves once it is in IndexedDB, with the stored event. */
  async log(
    eventType: AuditEventType,
    details: AuditDetails = {},
    severity: AuditSeverity = 'info',
  ): Promise<AuditEvent | undefined> {
    if (levelRank(severity) < levelRank(this.minLevel)) return undefined;
    const event = this.buildEvent(eventType, details, severity);
    if (!event) return undefined;
    try {
      const db = await this.db();
      const key = await db.add(STORE, { event });
      this.known.set(key, event);
    } catch (err) {
      // Auditing must never break the feature that logs; the event is lost and said so.
      console.warn('[audit] event not stored', err);
      return undefined;
    }
    void this.track(this.flushIfFull());
    return event;
  }

  debug(eventType: AuditEventType, details?: AuditDetails): Promise<AuditEvent | undefined> {
    return this.log(eventType, details, 'debug');
  }
  info(eventType: AuditEventType, details?: AuditDetails): Promise<AuditEvent | undefined> {
    return this.log(eventType, details, 'info');
  }
  warning(eventType: AuditEventType, details?: AuditDetails): Promise<AuditEvent | undefined> {
    return this.log(eventType, details, 'warning');
  }
  error(eventType: AuditEventType, details?: AuditDetails): Promise<AuditEvent | undefined> {
    return this.log(eventType, details, 'error');
  }
  critical(eventType: AuditEventType, details?: AuditDetails): Promise<AuditEvent | undefined> {
    return this.log(eventType, details, 'critical');
  }
  /** spec §8: a 403 records 'access_denied' with its French description. */
  accessDenied(details: AuditDetails = {}): Promise<AuditEvent | undefined> {
    return this.log(
      AUDIT_EVENT.ACCESS_DENIED,
      { description: AUDIT_DESCRIPTIONS.access_denied, ...details },
      'warning',
    );
  }
  tokenExpired(details: AuditDetails = {}): Promise<AuditEvent | undefined> {
    return this.log(
      AUDIT_EVENT.TOKEN_EXPIRED,
      { description: AUDIT_DESCRIPTIONS.token_expired, ...details },
      'warning',
    );
  }

  /**
   * Sends the stored events through `send`, a batch of maxEvents at a time, until none is left or a send fails
   * (the failed batch goes back, in order, for the next flush). Resolves with the number sent; never rejects.
   */
  async flush(): Promise<number> {
    let sent = 0;
    try {
      for (;;) {
        const batch = await this.claim(this.maxEvents);
        if (batch.length === 0) break;
        const keys = batch.map((b) => b.key);
        try {
          await this.sendEvents(
            batch.map((b) => b.event),
            { endpoint: this.endpoint, token: this.getToken() },
          );
        } catch {
          await this.release(keys);
          return sent;
        }
        await this.remove(keys);
        sent += batch.length;
      }
      await this.forgetDeletedElsewhere();
    } catch (err) {
      console.warn('[audit] flush failed', err);
    }
    return sent;
  }

  /**
   * Page is going away or hidden: beacons every stored event this page knows of, in chunks each strictly under
   * maxBeaconBytes. The beacons are queued synchronously (before any await) because the page may be frozen right
   * after the event; accepted chunks are then deleted, refused ones stay for the next flush. The returned promise
   * only tracks those deletions.
   */
  flushOnUnload(): Promise<void> {
    const items: BeaconItem<number>[] = [...this.known]
      .filter(([key]) => !this.inFlight.has(key))
      .sort((a, b) => a[0] - b[0])
      .map(([key, event]) => ({ key, json: JSON.stringify(event) }));
    if (items.length === 0) return Promise.resolve();

    const { chunks, tooLarge } = planBeaconChunks(items, this.getToken(), this.maxBeaconBytes);
    if (tooLarge.length > 0) {
      // Only possible with a token near the limit: these wait for the fetch path instead of looping here.
      console.warn(`[audit] ${tooLarge.length} event(s) too large for a beacon, kept for the next flush`);
    }
    const accepted: number[] = [];
    for (const chunk of chunks) {
      let ok = false;
      try {
        ok = this.beacon(this.endpoint, chunk.body);
      } catch {
        ok = false;
      }
      if (!ok) continue;
      for (const key of chunk.keys) this.inFlight.add(key);
      accepted.push(...chunk.keys);
    }
    if (accepted.length === 0) return Promise.resolve();
    return this.track(
      this.remove(accepted).catch((err: unknown) => {
        console.warn('[audit] beaconed events not deleted', err);
      }),
    );
  }

  /** Installs the auto-send timer and the pagehide / visibilitychange listeners (idempotent). */
  start(): void {
    this.timer ??= setInterval(() => {
      void this.track(this.flush());
    }, this.flushIntervalMs);
    if (!this.listening && typeof window !== 'undefined' && typeof document !== 'undefined') {
      window.addEventListener('pagehide', this.onPageHide);
      document.addEventListener('visibilitychange', this.onVisibilityChange);
      this.listening = true;
    }
    // Open now so events left by a previous page are known before the first pagehide.
    void this.track(
      this.db().catch((err: unknown) => {
        console.warn('[audit] storage unavailable', err);
      }),
    );
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    if (this.listening) {
      window.removeEventListener('pagehide', this.onPageHide);
      document.removeEventListener('visibilitychange', this.onVisibilityChange);
      this.listening = false;
    }
  }

  /** Empties the buffer (at logout, after a final flush). */
  async clear(): Promise<void> {
    const db = await this.db();
    await db.clear(STORE);
    this.known.clear();
  }

  /** How many events are stored, in flight or not. */
  async size(): Promise<number> {
    return (await this.db()).count(STORE);
  }

  /** Resolves when the flushes and deletions started in the background are over. */
  async settled(): Promise<void> {
    while (this.background.size > 0) await Promise.allSettled([...this.background]);
  }

  /** stop(), wait for background work, and close the connection (so the database can be deleted). */
  async close(): Promise<void> {
    this.stop();
    await this.settled();
    const pending = this.dbPromise;
    this.dbPromise = undefined;
    if (pending) (await pending.catch(() => undefined))?.close();
  }

  private readonly onPageHide = (): void => {
    void this.flushOnUnload();
  };

  private readonly onVisibilityChange = (): void => {
    if (document.visibilityState === 'hidden') void this.flushOnUnload();
  };

  private buildEvent(
    eventType: AuditEventType,
    details: AuditDetails,
    severity: AuditSeverity,
  ): AuditEvent | undefined {
    const event: AuditEvent = {
      event_id: randomId(),
      timestamp: new Date(this.now()).toISOString(),
      event_type: eventType,
      severity,
      details: toJsonDetails(details),
      source: 'frontend',
      // Origin and path only: a query string can carry secrets (a password-reset token), and the buffer is kept.
      url: typeof location === 'undefined' ? '' : location.origin + location.pathname,
      user_agent: typeof navigator === 'undefined' ? '' : navigator.userAgent,
    };
    const context = this.getContext();
    if (context) {
      if (context.user_id !== undefined) event.user_id = context.user_id;
      if (context.username !== undefined) event.username = context.username;
      if (context.tenant_id !== undefined) event.tenant_id = context.tenant_id;
      if (context.tenant_name !== undefined) event.tenant_name = context.tenant_name;
    }

    const bytes = utf8Bytes(JSON.stringify(event));
    if (bytes <= this.maxEventBytes) return event;
    // Oversize: keep the fact and its description, drop the bulk, so it still fits in one beacon.
    const description = event.details.description;
    event.details = {
      truncated: true,
      original_bytes: bytes,
      ...(typeof description === 'string' ? { description: description.slice(0, 200) } : {}),
    };
    if (utf8Bytes(JSON.stringify(event)) <= this.maxEventBytes) {
      console.warn(`[audit] ${eventType} details truncated (${bytes} bytes)`);
      return event;
    }
    console.warn(`[audit] ${eventType} dropped: too large even without details (${bytes} bytes)`);
    return undefined;
  }

  private db(): Promise<IDBPDatabase<AuditDb>> {
    this.dbPromise ??= this.openDb().catch((err: unknown) => {
      this.dbPromise = undefined; // let the next call try again
      throw err;
    });
    return this.dbPromise;
  }

  private async openDb(): Promise<IDBPDatabase<AuditDb>> {
    const db = await openDB<AuditDb>(this.dbName, 1, {
      upgrade(database) {
        database.createObjectStore(STORE, { autoIncrement: true });
      },
      // Another connection wants to delete or upgrade the database: step aside, reopen on next use.
      blocking: (_current, _blocked, event) => {
        (event.target as IDBDatabase).close();
        this.dbPromise = undefined;
        this.known.clear();
      },
      terminated: () => {
        this.dbPromise = undefined;
      },
    });
    // What a previous page (reload, crash) left behind, so it can leave by beacon too.
    let cursor = await db.transaction(STORE).store.openCursor();
    while (cursor) {
      this.known.set(cursor.key, cursor.value.event);
      cursor = await cursor.continue();
    }
    return db;
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.background.add(promise);
    void promise.finally(() => this.background.delete(promise)).catch(() => undefined);
    return promise;
  }

  private async flushIfFull(): Promise<void> {
    try {
      const stored = await (await this.db()).count(STORE);
      if (stored - this.inFlight.size >= this.maxEvents) await this.flush();
    } catch (err) {
      console.warn('[audit] size check failed', err);
    }
  }

  /**
   * Takes up to `limit` events, oldest first, that neither this page nor another tab is sending. The claim and
   * the lease are written in one readwrite transaction, which IndexedDB serialises with any other flush.
   */
  private async claim(limit: number): Promise<{ key: number; event: AuditEvent }[]> {
    const db = await this.db();
    const now = this.now();
    const claimed: { key: number; event: AuditEvent }[] = [];
    const tx = db.transaction(STORE, 'readwrite');
    try {
      let cursor = await tx.store.openCursor();
      while (cursor && claimed.length < limit) {
        const { key, value } = cursor;
        const leased = value.lease_until !== undefined && value.lease_until > now;
        if (!leased && !this.inFlight.has(key)) {
          this.inFlight.add(key);
          claimed.push({ key, event: value.event });
          await cursor.update({ event: value.event, lease_until: now + this.leaseMs });
        }
        cursor = await cursor.continue();
      }
      await tx.done;
    } catch (err) {
      for (const { key } of claimed) this.inFlight.delete(key);
      throw err;
    }
    return claimed;
  }

  /** A failed send: the events become sendable again, under their original keys (so in their original order). */
  private async release(keys: number[]): Promise<void> {
    try {
      const tx = (await this.db()).transaction(STORE, 'readwrite');
      for (const key of keys) {
        const stored = await tx.store.get(key);
        if (stored) await tx.store.put({ event: stored.event }, key); // absent after clear(): not resurrected
      }
      await tx.done;
    } finally {
      for (const key of keys) this.inFlight.delete(key);
    }
  }

  private async remove(keys: number[]): Promise<void> {
    try {
      const tx = (await this.db()).transaction(STORE, 'readwrite');
      for (const key of keys) await tx.store.delete(key);
      await tx.done;
      for (const key of keys) this.known.delete(key);
    } finally {
      for (const key of keys) this.inFlight.delete(key);
    }
  }

  /** Another tab may have sent events this page logged; do not beacon them again at pagehide. */
  private async forgetDeletedElsewhere(): Promise<void> {
    const stored = new Set(await (await this.db()).getAllKeys(STORE));
    for (const key of this.known.keys()) if (!stored.has(key)) this.known.delete(key);
  }
}

export function createAuditBuffer(options: AuditBufferOptions): AuditBuffer {
  return new AuditBuffer(options);
}
