import {
  ApiError,
  apiRequestWithOrigin,
  TIMEOUTS,
  type ApiErrorKind,
  type DataOrigin,
  type RequestOptions,
} from '../../lib/api-client.ts';
import { UploadAbortedError } from '../../lib/upload.ts';
import { QUEUED_MESSAGE } from '../../../contract/sw-messages.ts';
import type { Paged } from './project-types.ts';

/**
 * How the projects client talks to the API (every call goes through api-client: headers, 401 refresh, service
 * worker cache and write queue). Errors follow spec §8 "Projects": a connection message when nothing answered, an
 * "unexpected error" message naming the call otherwise, the create-specific messages, and 401/403 passed on
 * untouched. A failing list resolves with an empty list and its error (see ListResult).
 */

/** A list and where it came from; on failure, an empty list and the French error (spec §8). */
export interface ListResult<T> {
  data: Paged<T>;
  origin: DataOrigin;
  error: string | null;
}

/** A write's outcome: done (with the server's answer) or stored offline by the service worker. */
export type Written<T> = { queued: false; data: T } | { queued: true; data: null; message: string };

export const PROJECT_MESSAGES = {
  connection:
    "Erreur de connexion au backend Vigie. Merci de vérifier votre accès réseau ou de contacter l'administrateur.",
  unknownCause: 'Erreur inconnue.',
  createFailed: 'Erreur lors de la création du projet. Veuillez réessayer.',
  queued: QUEUED_MESSAGE,
  notFound: 'Projet introuvable : il n’existe pas ou vous n’y avez pas accès dans cette organisation.',
  forbidden: 'Accès refusé : vous n’avez pas les droits pour consulter ce projet.',
} as const;

export function unexpectedMessage(what: string, cause?: string | null): string {
  const text = cause?.trim();
  return `Erreur inattendue lors de l'appel API ${what} : ${text ? text : PROJECT_MESSAGES.unknownCause}`;
}

/** A project call's error: the spec §8 message, and the server's status, body and `fields` kept for forms. */
export class ProjectApiError extends ApiError {
  constructor(status: number, message: string, data?: unknown, kind: ApiErrorKind = 'http') {
    super(status, message, data, kind);
    this.name = 'ProjectApiError';
  }
}

export function detailOf(data: unknown): string | undefined {
  if (data && typeof data === 'object') {
    const d = data as Record<string, unknown>;
    for (const key of ['detail', 'message', 'error']) {
      const v = d[key];
      if (typeof v === 'string' && v.trim() !== '') return v;
    }
  }
  return undefined;
}

export function isAuthError(err: unknown): boolean {
  return err instanceof ApiError && (err.status === 401 || err.status === 403);
}

/**
 * Spec spec §8 "Projects": 401/403 and a cancelled upload pass unchanged; no answer (network, timeout) gives the
 * connection message; anything else "Erreur inattendue lors de l'appel API {what} : {cause}".
 */
export function projectError(err: unknown, what: string): ApiError {
  if (err instanceof UploadAbortedError) return err;
  if (err instanceof ProjectApiError) return err;
  if (isAuthError(err)) return err as ApiError;
  if (err instanceof ApiError) {
    if (err.status === 0 || err.kind !== 'http')
      return new ProjectApiError(0, PROJECT_MESSAGES.connection, err.data, err.kind);
    return new ProjectApiError(err.status, unexpectedMessage(what, detailOf(err.data) ?? err.message), err.data);
  }
  if (err instanceof TypeError) return new ProjectApiError(0, PROJECT_MESSAGES.connection, undefined, 'network');
  return new ProjectApiError(0, unexpectedMessage(what, err instanceof Error ? err.message : null));
}

/** Create (spec §8): 'Erreur: {detail}' from the server, else the generic create message. */
export function createError(err: unknown): ApiError {
  if (isAuthError(err)) return err as ApiError;
  if (err instanceof ApiError && (err.status === 0 || err.kind !== 'http'))
    return new ProjectApiError(0, PROJECT_MESSAGES.connection, err.data, err.kind);
  const detail = err instanceof ApiError ? detailOf(err.data) : undefined;
  return new ProjectApiError(
    err instanceof ApiError ? err.status : 0,
    detail ? `Erreur: ${detail}` : PROJECT_MESSAGES.createFailed,
    err instanceof ApiError ? err.data : undefined,
  );
}

export function emptyPage<T>(): Paged<T> {
  return { count: 0, next: null, previous: null, results: [] };
}

/** spec §3: a paged list, or a plain array. */
export function toPaged<T>(data: unknown): Paged<T> {
  if (Array.isArray(data)) return { count: data.length, next: null, previous: null, results: data as T[] };
  if (data && typeof data === 'object') {
    const d = data as Partial<Paged<T>>;
    const results = Array.isArray(d.results) ? d.results : [];
    return {
      count: typeof d.count === 'number' ? d.count : results.length,
      next: d.next ?? null,
      previous: d.previous ?? null,
      results,
    };
  }
  return emptyPage<T>();
}

export type Query = Record<string, string | number | boolean | undefined>;

export function cleanQuery(query: Query): Query {
  const q: Query = {};
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') q[k] = v;
  return q;
}

export async function read<T>(
  what: string,
  path: string,
  opts: RequestOptions = {},
): Promise<{ data: T; origin: DataOrigin }> {
  try {
    return await apiRequestWithOrigin<T>(path, { timeoutMs: TIMEOUTS.project, allowForbidden: true, ...opts });
  } catch (err) {
    throw projectError(err, what);
  }
}

export async function list<T>(what: string, path: string, query: Query, timeoutMs: number = TIMEOUTS.project) {
  try {
    const { data, origin } = await apiRequestWithOrigin<unknown>(path, {
      query: cleanQuery(query),
      timeoutMs,
      allowForbidden: true,
    });
    return { data: toPaged<T>(data), origin, error: null } satisfies ListResult<T>;
  } catch (err) {
    const e = projectError(err, what);
    if (isAuthError(e)) throw e;
    return { data: emptyPage<T>(), origin: { source: 'network' }, error: e.message } satisfies ListResult<T>;
  }
}

export function written<T>(answer: { data: T; origin: DataOrigin }): Written<T> {
  if (answer.origin.source === 'queued')
    return { queued: true, data: null, message: detailOf(answer.data) ?? PROJECT_MESSAGES.queued };
  return { queued: false, data: answer.data };
}

/** A queueable write (the service worker keeps it offline and replays it once, with its Idempotency-Key). */
export async function write<T>(
  what: string,
  path: string,
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  body?: Record<string, unknown>,
): Promise<Written<T>> {
  return written(await read<T>(what, path, { method, queueable: true, ...(body !== undefined ? { body } : {}) }));
}
