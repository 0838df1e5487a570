import { apiRequestWithOrigin, ApiError, type DataOrigin } from '../../lib/api-client.ts';
import { fetchThreatSummary, type ThreatSummary } from '../../features/threats/threats-api.ts';
import { fetchRecentTasks, type BackgroundTask } from '../../features/tasks/tasks-api.ts';
import type { Severity } from '../../../contract/severity.ts';
import type { PanelId } from './kiosk-config.ts';

export type SeverityCounts = Record<Severity, number>;

/** GET /api/vulnerabilities/summary/ (the spec §8 sample lacks the counts added by the API contract). */
export interface VulnerabilitySummary {
  total_vulnerabilities: number;
  severity_distribution: SeverityCounts;
  vulnerability_trends: { date: string; count: number }[];
  kev_count?: number;
  open_count?: number;
  resolved_count?: number;
  top_affected_assets?: { id: number | string; name: string; count: number; critical?: number }[];
  generated_at?: string;
}

/** GET /api/dashboard/summary/ */
export interface DashboardSummary {
  vulnerabilities?: {
    total?: number;
    open?: number;
    critical?: number;
    high?: number;
    kev?: number;
    resolved?: number;
  };
  assets?: { total?: number; critical?: number };
  threats?: { total?: number; active?: number };
  scans?: { total?: number; running?: number; last_completed_at?: string | null };
  tasks?: { running?: number; failed_24h?: number };
  last_cve_update?: string | null;
  generated_at?: string;
}

export interface PanelData {
  vulnerabilities: VulnerabilitySummary;
  threats: ThreatSummary;
  tasks: BackgroundTask[];
  overview: DashboardSummary;
}

export interface Loaded<T> {
  data: T;
  origin: DataOrigin;
}

const EMPTY_SEVERITIES: SeverityCounts = { critical: 0, high: 0, medium: 0, low: 0, info: 0 };

async function loadVulnerabilities(): Promise<Loaded<VulnerabilitySummary>> {
  const { data, origin } = await apiRequestWithOrigin<Partial<VulnerabilitySummary> | null>(
    '/vulnerabilities/summary/',
    { query: { days: 30 }, allowForbidden: true },
  );
  if (!data || typeof data !== 'object') throw new ApiError(0, 'Réponse inattendue du serveur.');
  return {
    data: {
      ...data,
      total_vulnerabilities: data.total_vulnerabilities ?? 0,
      severity_distribution: { ...EMPTY_SEVERITIES, ...data.severity_distribution },
      vulnerability_trends: data.vulnerability_trends ?? [],
    },
    origin,
  };
}

async function loadOverview(): Promise<Loaded<DashboardSummary>> {
  const { data, origin } = await apiRequestWithOrigin<DashboardSummary | null>('/dashboard/summary/', {
    allowForbidden: true,
  });
  if (!data || typeof data !== 'object') throw new ApiError(0, 'Réponse inattendue du serveur.');
  return { data, origin };
}

export const LOADERS: { [K in PanelId]: () => Promise<Loaded<PanelData[K]>> } = {
  vulnerabilities: loadVulnerabilities,
  threats: fetchThreatSummary,
  tasks: () => fetchRecentTasks(20),
  overview: loadOverview,
};
