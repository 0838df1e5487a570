import { apiRequest, apiRequestWithOrigin, type DataOrigin } from '../../../lib/api-client.ts';
import type { AssetOption, Cve, CveHit, Paged, Vulnerability, VulnerabilitySummary } from './types.ts';
import { MAX_PAGE_SIZE } from '../../../../contract/paged.ts';

export interface WithOrigin<T> {
  data: T;
  origin: DataOrigin;
}

const BASE = '/vulnerabilities';

export function fetchSummary(days: number): Promise<WithOrigin<VulnerabilitySummary>> {
  return apiRequestWithOrigin<VulnerabilitySummary>(`${BASE}/summary/`, { query: { days } });
}

export type ListQuery = Record<string, string | number | boolean | undefined>;

export function fetchVulnerabilityPage(
  query: ListQuery,
  page: number,
  pageSize: number,
): Promise<WithOrigin<Paged<Vulnerability>>> {
  return apiRequestWithOrigin<Paged<Vulnerability>>(`${BASE}/vulnerabilities/`, {
    query: { ...query, page, page_size: pageSize },
  });
}

export function fetchVulnerability(id: string): Promise<WithOrigin<Vulnerability>> {
  return apiRequestWithOrigin<Vulnerability>(`${BASE}/vulnerabilities/${encodeURIComponent(id)}/`);
}

export function markResolved(id: string | number, isResolved: boolean): Promise<Vulnerability> {
  return apiRequest<Vulnerability>(`${BASE}/vulnerabilities/${encodeURIComponent(String(id))}/mark_resolved/`, {
    method: 'POST',
    body: { is_resolved: isResolved },
    allowForbidden: true,
  });
}

export function searchCves(
  q: string,
  page = 1,
  pageSize = 25,
): Promise<WithOrigin<{ count: number; results: CveHit[]; took_ms?: number }>> {
  return apiRequestWithOrigin(`${BASE}/es/search/`, { query: { q, page, page_size: pageSize } });
}

export function fetchCve(cveId: string): Promise<WithOrigin<Cve>> {
  return apiRequestWithOrigin<Cve>(`${BASE}/es/cve/${encodeURIComponent(cveId)}/`);
}

/** Assets for the list filter (names only); an empty list when they cannot be read. */
export async function fetchAssetOptions(): Promise<AssetOption[]> {
  try {
    const page = await apiRequest<Paged<AssetOption> | AssetOption[]>('/assets/', {
      query: { page: 1, page_size: MAX_PAGE_SIZE, ordering: 'name' },
    });
    const list = Array.isArray(page) ? page : page.results;
    return list.map((a) => ({ id: a.id, name: a.name }));
  } catch {
    return [];
  }
}

export const EXPORT_PATH = `${BASE}/export/`;
