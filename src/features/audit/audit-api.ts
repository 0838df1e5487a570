import { apiRequestWithOrigin, type DataOrigin } from '../../lib/api-client.ts';
import type { AuditSeverity } from '../../../contract/levels.ts';

/** docs/api-audit.md: the server trail's severities (spec §9), as the contract spells them. */
export type AuditEventSeverity = AuditSeverity;

/** spec §3 server audit event, plus `source` and `extra` (docs/api-audit.md). */
export interface AuditEvent {
  id: number | string;
  timestamp: string;
  event_type: string;
  user: string | null;
  ip_address: string | null;
  description: string;
  severity: AuditEventSeverity;
  tenant_id: string | null;
  details: { browser?: string | null; os?: string | null; success?: boolean | null };
  source?: 'server' | 'frontend';
  extra?: Record<string, unknown> | null;
}

/** spec §3 audit page. */
export interface AuditPage {
  results: AuditEvent[];
  total: number;
  page: number;
  size: number;
  pages: number;
}

/** The filters of GET /audit/results/ and /audit/export/{format}/; empty strings are left out. */
export interface AuditFilters {
  event_type?: string;
  severity?: string;
  user?: string;
  source?: string;
  date_from?: string;
  date_to?: string;
  q?: string;
  /** Superusers only: 'all' or a tenant id. */
  tenant?: string;
}

export interface AuditQuery extends AuditFilters {
  page: number;
  size: number;
}

export type AuditExportFormat = 'csv' | 'json';

export const AUDIT_RESULTS_PATH = '/audit/results/';

export function auditExportPath(format: AuditExportFormat): string {
  return `/audit/export/${format}/`;
}

/** The filters as query parameters, without the empty ones. */
export function filterParams(filters: AuditFilters): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(filters)) {
    if (typeof value === 'string' && value.trim() !== '') out[key] = value.trim();
  }
  return out;
}

export async function fetchAuditEvents(query: AuditQuery): Promise<{ data: AuditPage; origin: DataOrigin }> {
  const { page, size, ...filters } = query;
  const { data, origin } = await apiRequestWithOrigin<Partial<AuditPage> | null>(AUDIT_RESULTS_PATH, {
    query: { page, size, ...filterParams(filters) },
    // A 403 is shown on the screen, not turned into a redirect.
    allowForbidden: true,
  });
  const results = Array.isArray(data?.results) ? data.results : [];
  const total = typeof data?.total === 'number' ? data.total : results.length;
  const pageSize = typeof data?.size === 'number' && data.size > 0 ? data.size : size;
  return {
    data: {
      results,
      total,
      page: typeof data?.page === 'number' ? data.page : page,
      size: pageSize,
      pages: typeof data?.pages === 'number' ? data.pages : Math.ceil(total / pageSize),
    },
    origin,
  };
}
