/**
 * What the page and the service worker say to each other: the messages of `postMessage` both ways, and the marks
 * the worker puts on the answers it makes or keeps (headers read by the page's API client).
 */

/** The page asks the worker to replay its queue of offline writes now (the browser is back online). */
export interface ReplayRequest {
  type: 'REPLAY';
}

/** The page asks how many offline writes wait: the worker answers with a `QueueReport`. */
export interface QueueStatusRequest {
  type: 'QUEUE_STATUS';
}

/** The page lets a waiting new version take over (sent by vite-plugin-pwa's `registerSW` update). */
export interface SkipWaitingRequest {
  type: 'SKIP_WAITING';
}

/** Sign-out or a lost session: the worker purges this user's cached answers and queued writes. */
export interface LogoutRequest {
  type: 'LOGOUT';
}

/** Every message the page posts to the worker. */
export type PageToWorkerMessage = ReplayRequest | QueueStatusRequest | SkipWaitingRequest | LogoutRequest;

/** How many offline writes wait in the worker's queue (after a change, a replay, or a `QUEUE_STATUS`). */
export interface QueueReport {
  type: 'QUEUE';
  pending: number;
}

/** A queued write the server refused for good when it was replayed (a 4xx): its path and French detail. */
export interface WriteRefusedReport {
  type: 'WRITE_REFUSED';
  status: number;
  /** The write's path, e.g. /api/projects/4/. */
  url: string;
  /** The server's `detail`, else « Erreur {status} ». */
  detail: string;
}

/** Every message the worker posts to its pages. */
export type WorkerToPageMessage = QueueReport | WriteRefusedReport;

export const PAGE_TO_WORKER_TYPES = ['REPLAY', 'QUEUE_STATUS', 'SKIP_WAITING', 'LOGOUT'] as const;
export const WORKER_TO_PAGE_TYPES = ['QUEUE', 'WRITE_REFUSED'] as const;

function typeOf(data: unknown): unknown {
  return data && typeof data === 'object' ? (data as { type?: unknown }).type : undefined;
}

/** A message event's data, as a worker's report when it is one (anything else: null). */
export function workerMessageOf(data: unknown): WorkerToPageMessage | null {
  const type = typeOf(data);
  const d = data as Record<string, unknown>;
  if (type === 'QUEUE') return typeof d.pending === 'number' ? { type, pending: d.pending } : null;
  if (type === 'WRITE_REFUSED')
    return {
      type,
      status: typeof d.status === 'number' ? d.status : 0,
      url: typeof d.url === 'string' ? d.url : '',
      detail: typeof d.detail === 'string' ? d.detail : '',
    };
  return null;
}

/** A message event's data, as a page's request when it is one (anything else: null). */
export function pageMessageOf(data: unknown): PageToWorkerMessage | null {
  const type = typeOf(data);
  return (PAGE_TO_WORKER_TYPES as readonly unknown[]).includes(type) ? ({ type } as PageToWorkerMessage) : null;
}

// Marks on answers

/** Where an answer came from, set by the worker; no header: straight from the network. */
export const SOURCE_HEADER = 'X-Vigie-Source';
/** When a cached answer was stored (ms since the epoch), beside `X-Vigie-Source: cache`. */
export const STORED_AT_HEADER = 'X-Vigie-Stored-At';
/** Set by the page on a write that may wait offline in the worker's queue (with an `Idempotency-Key`). */
export const QUEUEABLE_HEADER = 'X-Vigie-Queueable';

/** The values of `X-Vigie-Source`, and `network` for an unmarked answer. */
export const DATA_SOURCES = ['network', 'cache', 'sample', 'queued'] as const;
export type DataSource = (typeof DATA_SOURCES)[number];

/** The `detail` of the 202 the worker answers for a write it queued offline. */
export const QUEUED_MESSAGE = 'Modification enregistrée hors ligne ; elle sera envoyée au retour du réseau.';

/** Shown when a queued write was refused but the worker's report carried no detail. */
export const WRITE_REFUSED_FALLBACK = 'Une modification a été refusée par le serveur.';
