import type { Severity } from '../../../contract/severity.ts';
import type { ThreatStatus } from '../../../contract/threats.ts';
import { ApiError, apiRequestWithOrigin, type DataOrigin } from '../../lib/api-client.ts';
import { messageOf } from '../../lib/error-message.ts';

export type { Severity } from '../../../contract/severity.ts';
export type { ThreatStatus } from '../../../contract/threats.ts';

export interface Threat {
  id: number | string;
  title: string;
  description: string;
  threat_type: string;
  severity: Severity;
  status: ThreatStatus;
  is_mitigated: boolean;
  mitigated_at: string | null;
  source: string;
  cve_id: string | null;
  asset_id: number | string | null;
  asset: { id: number | string; name: string } | null;
  created_at: string;
  updated_at: string;
}

/** spec §3 threat summary. */
export interface ThreatSummary {
  threats_count: number;
  by_severity: { severity: string; count: number }[];
  by_status: { status: string; count: number }[];
  recent_threats: Threat[];
}

/** spec §3 threat list page. */
export interface ThreatPage {
  results: Threat[];
  total: number;
  page: number;
  size: number;
  pages: number;
}

export interface ThreatQuery {
  page: number;
  size: number;
  severity?: string;
  status?: string;
  text?: string;
}

export interface ThreatInput {
  title: string;
  description: string;
  threat_type: string;
  severity: Severity;
  status: ThreatStatus;
  source: string;
  cve_id: string | null;
  asset_id: number | null;
}

const BASE = '/threats/';

/**
 * What every threats call gives back (spec §7): the answer, or on error the spec §7 fallback value (empty results, null or
 * false) marked `failed` with the French reason, so a screen can say that what it shows is a default and not the
 * truth. 401 and 403 are not failures of this kind: they are thrown as before (the API client signs out or
 * redirects on 401; a 403 carries its French refusal).
 */
export type ThreatOutcome<T> =
  | { failed: false; data: T; origin: DataOrigin }
  | {
      failed: true;
      data: T;
      /** French, from the API client (or the server's detail). */
      message: string;
      /** 0 when the server did not answer. */
      status: number;
      /** The server's field messages ({field: [messages]}), for a refused create or update. */
      fields: Record<string, string[]>;
    };

/** spec §7 fallbacks. */
export function emptyThreatSummary(): ThreatSummary {
  return { threats_count: 0, by_severity: [], by_status: [], recent_threats: [] };
}

export function emptyThreatPage(query: Pick<ThreatQuery, 'page' | 'size'>): ThreatPage {
  return { results: [], total: 0, page: query.page, size: query.size, pages: 0 };
}

async function attempt<A, T>(
  fallback: T,
  call: () => Promise<{ data: A; origin: DataOrigin }>,
  read: (data: A) => T,
): Promise<ThreatOutcome<T>> {
  let answer: { data: A; origin: DataOrigin };
  try {
    answer = await call();
  } catch (err) {
    if (err instanceof ApiError && (err.status === 401 || err.status === 403)) throw err;
    const api = err instanceof ApiError ? err : undefined;
    return {
      failed: true,
      data: fallback,
      message: messageOf(err),
      status: api?.status ?? 0,
      fields: api?.fields ?? {},
    };
  }
  return { failed: false, data: read(answer.data), origin: answer.origin };
}

/** spec §3 threat summary; the empty summary on error. */
export function readThreatSummary(): Promise<ThreatOutcome<ThreatSummary>> {
  return attempt(
    emptyThreatSummary(),
    () => apiRequestWithOrigin<Partial<ThreatSummary> | null>(`${BASE}summary/`, { allowForbidden: true }),
    (data) => ({
      threats_count: data?.threats_count ?? 0,
      by_severity: data?.by_severity ?? [],
      by_status: data?.by_status ?? [],
      recent_threats: data?.recent_threats ?? [],
    }),
  );
}

/**
 * The kiosk's contract (src/app/kiosk/kiosk-data.ts): the summary, or a thrown ApiError instead of the spec §7 fallback,
 * so a wall screen keeps its last good figures rather than showing zeros. Screens use readThreatSummary.
 */
export async function fetchThreatSummary(): Promise<{ data: ThreatSummary; origin: DataOrigin }> {
  const outcome = await readThreatSummary();
  if (outcome.failed) throw new ApiError(outcome.status, outcome.message);
  return { data: outcome.data, origin: outcome.origin };
}

/** spec §3 threat list page; an empty page (same page and size, 0 pages) on error. */
export function fetchThreats(query: ThreatQuery): Promise<ThreatOutcome<ThreatPage>> {
  const q: Record<string, string | number> = { page: query.page, size: query.size };
  if (query.severity) q.severity = query.severity;
  if (query.status) q.status = query.status;
  if (query.text) q.text = query.text;
  return attempt(
    emptyThreatPage(query),
    () => apiRequestWithOrigin<Partial<ThreatPage> | null>(BASE, { query: q, allowForbidden: true }),
    (data) => ({
      results: data?.results ?? [],
      total: data?.total ?? 0,
      page: data?.page ?? query.page,
      size: data?.size ?? query.size,
      pages: data?.pages ?? 0,
    }),
  );
}

/** GET /api/threats/{id}/: the threat as the server has it now; null on error (a 404 included). */
export function fetchThreat(id: Threat['id']): Promise<ThreatOutcome<Threat | null>> {
  return attempt<Threat, Threat | null>(
    null,
    () => apiRequestWithOrigin<Threat>(`${BASE}${id}/`, { allowForbidden: true }),
    (data) => data,
  );
}

/** The created threat; null on error. */
export function createThreat(body: ThreatInput): Promise<ThreatOutcome<Threat | null>> {
  return attempt<Threat, Threat | null>(
    null,
    () => apiRequestWithOrigin<Threat>(BASE, { method: 'POST', body: { ...body }, allowForbidden: true }),
    (data) => data,
  );
}

/** The updated threat; null on error. */
export function updateThreat(id: Threat['id'], body: ThreatInput): Promise<ThreatOutcome<Threat | null>> {
  return attempt<Threat, Threat | null>(
    null,
    () => apiRequestWithOrigin<Threat>(`${BASE}${id}/`, { method: 'PUT', body: { ...body }, allowForbidden: true }),
    (data) => data,
  );
}

/** true once deleted; false on error. */
export function deleteThreat(id: Threat['id']): Promise<ThreatOutcome<boolean>> {
  return attempt(
    false,
    () => apiRequestWithOrigin<unknown>(`${BASE}${id}/`, { method: 'DELETE', allowForbidden: true }),
    () => true,
  );
}

/** The threat, now mitigated; false on error. */
export function markMitigated(id: Threat['id']): Promise<ThreatOutcome<Threat | false>> {
  return attempt<Threat, Threat | false>(
    false,
    () => apiRequestWithOrigin<Threat>(`${BASE}${id}/mark_mitigated/`, { method: 'POST', allowForbidden: true }),
    (data) => data,
  );
}
