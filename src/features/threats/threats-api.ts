import { apiRequest, apiRequestWithOrigin, type DataOrigin } from '../../lib/api-client.ts';

export type Severity = 'critical' | 'high' | 'medium' | 'low' | 'info';
export type ThreatStatus = 'ACTIVE' | 'INVESTIGATING' | 'MITIGATED' | 'CLOSED';

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

/** §3 threat summary. */
export interface ThreatSummary {
  threats_count: number;
  by_severity: { severity: string; count: number }[];
  by_status: { status: string; count: number }[];
  recent_threats: Threat[];
}

/** §3 threat list page. */
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

export async function fetchThreatSummary(): Promise<{ data: ThreatSummary; origin: DataOrigin }> {
  const { data, origin } = await apiRequestWithOrigin<Partial<ThreatSummary> | null>(`${BASE}summary/`, {
    allowForbidden: true,
  });
  return {
    data: {
      threats_count: data?.threats_count ?? 0,
      by_severity: data?.by_severity ?? [],
      by_status: data?.by_status ?? [],
      recent_threats: data?.recent_threats ?? [],
    },
    origin,
  };
}

export async function fetchThreats(query: ThreatQuery): Promise<{ data: ThreatPage; origin: DataOrigin }> {
  const q: Record<string, string | number> = { page: query.page, size: query.size };
  if (query.severity) q.severity = query.severity;
  if (query.status) q.status = query.status;
  if (query.text) q.text = query.text;
  const { data, origin } = await apiRequestWithOrigin<Partial<ThreatPage> | null>(BASE, {
    query: q,
    allowForbidden: true,
  });
  return {
    data: {
      results: data?.results ?? [],
      total: data?.total ?? 0,
      page: data?.page ?? query.page,
      size: data?.size ?? query.size,
      pages: data?.pages ?? 0,
    },
    origin,
  };
}

export function createThreat(body: ThreatInput): Promise<Threat> {
  return apiRequest<Threat>(BASE, { method: 'POST', body: { ...body }, allowForbidden: true });
}

export function updateThreat(id: Threat['id'], body: ThreatInput): Promise<Threat> {
  return apiRequest<Threat>(`${BASE}${id}/`, { method: 'PUT', body: { ...body }, allowForbidden: true });
}

export function deleteThreat(id: Threat['id']): Promise<unknown> {
  return apiRequest<unknown>(`${BASE}${id}/`, { method: 'DELETE', allowForbidden: true });
}

export function markMitigated(id: Threat['id']): Promise<Threat> {
  return apiRequest<Threat>(`${BASE}${id}/mark_mitigated/`, { method: 'POST', allowForbidden: true });
}
