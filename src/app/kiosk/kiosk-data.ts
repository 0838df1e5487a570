import { apiRequestWithOrigin, ApiError, type DataOrigin } from '../../lib/api-client.ts';
import { fetchThreatSummary, type ThreatSummary } from '../../features/threats/threats-api.ts';
import { fetchRecentTasks, type BackgroundTask } from '../../features/tasks/tasks-api.ts';
import { fetchSummary } from '../../features/vulnerabilities/api/vulnerabilities.ts';
import type { VulnerabilitySummary } from '../../features/vulnerabilities/api/types.ts';
import type { Severity } from '../../../contract/severity.ts';
import type { PanelId } from './kiosk-config.ts';

export type { VulnerabilitySummary };

/** Threats per severity: the five scored ones (a threat is never « Non évaluée »). */
export type SeverityCounts = Record<Severity, number>;

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

/** The vulnerability dashboard's own summary (its figures, SSVC Act count and six severity counts), 30 days. */
const loadVulnerabilities = (): Promise<Loaded<VulnerabilitySummary>> => fetchSummary(30, { allowForbidden: true });

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
