import {
  apiRequestWithOrigin,
  ApiError,
  type DataOrigin,
  type DeviceCredentials,
  type RequestOptions,
} from '../../lib/api-client.ts';
import type { ThreatSummary } from '../../features/threats/threats-api.ts';
import type { BackgroundTask } from '../../features/tasks/tasks-api.ts';
import type { SlaReport, WithOrigin } from '../../features/vulnerabilities/api/vulnerabilities.ts';
import type { Paged, Vulnerability, VulnerabilitySummary } from '../../features/vulnerabilities/api/types.ts';
import type { NotificationLevel } from '../../../contract/levels.ts';
import { severityCounts, type Severity } from '../../../contract/severity.ts';
import type { HeatCell } from '../../components/risk-matrix.tsx';
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

/** A short list of findings and how many match in all (the Act queue, the KEV matches). */
export interface FindingQueue {
  count: number;
  results: Vulnerability[];
}

/** GET /api/dashboard/risks/: the open risks per cell, initial and residual. */
export interface RiskMap {
  open: number;
  projects: number;
  initial: HeatCell[];
  residual: HeatCell[];
}

/** One row of GET /api/dashboard/events/: the team's events, not anybody's own notices. */
export interface WallEvent {
  id: number;
  kind: 'critical_vulnerability' | 'kev_match' | 'task_failed' | 'message';
  level: NotificationLevel;
  title: string;
  link: string | null;
  created_at: string;
}

export interface PanelData {
  vulnerabilities: VulnerabilitySummary;
  act: FindingQueue;
  kev: FindingQueue;
  threats: ThreatSummary;
  tasks: BackgroundTask[];
  overdue: SlaReport;
  risks: RiskMap;
  events: WallEvent[];
  overview: DashboardSummary;
}

export type Loaded<T> = WithOrigin<T>;

export type Loaders = { [K in PanelId]: (device?: DeviceCredentials) => Promise<Loaded<PanelData[K]>> };

const unexpected = () => new ApiError(0, 'Réponse inattendue du serveur.');
const listOf = <T>(value: T[] | undefined): T[] => (Array.isArray(value) ? value : []);

/**
 * The kiosk's reads: a refusal stays on the wall with its message (allowForbidden), and a paired screen reads them
 * with its own credential (docs/displays.md lists exactly these).
 */
async function read<T>(
  path: string,
  device: DeviceCredentials | undefined,
  query?: RequestOptions['query'],
): Promise<{ data: T | null; origin: DataOrigin }> {
  return apiRequestWithOrigin<T | null>(path, {
    allowForbidden: true,
    ...(query ? { query } : {}),
    ...(device ? { device } : {}),
  });
}

function objectOf<T>(data: T | null): T {
  if (!data || typeof data !== 'object') throw unexpected();
  return data;
}

/** The vulnerability dashboard's own summary (its figures, SSVC Act count and six severity counts), 30 days. */
async function loadVulnerabilities(device?: DeviceCredentials): Promise<Loaded<VulnerabilitySummary>> {
  type Answer = Partial<Omit<VulnerabilitySummary, 'severity_distribution'>> & { severity_distribution?: unknown };
  const { data, origin } = await read<Answer>('/vulnerabilities/summary/', device, { days: 30 });
  const d = objectOf(data);
  return {
    data: {
      ...(d as VulnerabilitySummary),
      severity_distribution: severityCounts(d.severity_distribution),
      recently_added: listOf(d.recently_added),
      top_affected_assets: listOf(d.top_affected_assets),
      top_cwe_categories: listOf(d.top_cwe_categories),
      vulnerability_trends: listOf(d.vulnerability_trends),
    },
    origin,
  };
}

/** Open findings of one filter, worst first: 10 shown, the count of all. */
async function loadQueue(query: Record<string, string | number>, device?: DeviceCredentials) {
  const { data, origin } = await read<Partial<Paged<Vulnerability>>>('/vulnerabilities/vulnerabilities/', device, {
    is_resolved: 'false',
    ordering: '-cvss_score',
    page_size: 10,
    ...query,
  });
  const page = objectOf(data);
  if (!Array.isArray(page.results)) throw unexpected();
  return {
    data: { count: typeof page.count === 'number' ? page.count : page.results.length, results: page.results },
    origin,
  };
}

async function loadThreats(device?: DeviceCredentials): Promise<Loaded<ThreatSummary>> {
  const { data, origin } = await read<Partial<ThreatSummary>>('/threats/summary/', device);
  const d = objectOf(data);
  return {
    data: {
      threats_count: d.threats_count ?? 0,
      by_severity: listOf(d.by_severity),
      by_status: listOf(d.by_status),
      recent_threats: listOf(d.recent_threats),
    },
    origin,
  };
}

/** Signed in: the recent runs; a paired screen reads the tasks' overview, the one task read it is allowed. */
async function loadTasks(device?: DeviceCredentials): Promise<Loaded<BackgroundTask[]>> {
  const { data, origin } = device
    ? await read<{ recent_tasks?: BackgroundTask[] }>('/celery/tasks/', device)
    : await read<{ recent_tasks?: BackgroundTask[] }>('/celery/tasks/recent/', undefined, { limit: 20 });
  return { data: listOf(data?.recent_tasks ?? undefined), origin };
}

async function loadOverdue(device?: DeviceCredentials): Promise<Loaded<SlaReport>> {
  const { data, origin } = await read<SlaReport>('/vulnerabilities/sla-report/', device);
  const d = objectOf(data);
  // A backend without the report (a sample in its place) has no figures to show.
  if (typeof d.overdue !== 'number') throw new ApiError(404, 'Rapport de délais indisponible sur ce serveur.');
  return { data: d, origin };
}

async function loadRisks(device?: DeviceCredentials): Promise<Loaded<RiskMap>> {
  const { data, origin } = await read<{ risks?: Partial<RiskMap> }>('/dashboard/risks/', device);
  const r = objectOf(data).risks;
  if (!r || typeof r.open !== 'number') throw unexpected();
  return {
    data: { open: r.open, projects: r.projects ?? 0, initial: listOf(r.initial), residual: listOf(r.residual) },
    origin,
  };
}

async function loadEvents(device?: DeviceCredentials): Promise<Loaded<WallEvent[]>> {
  const { data, origin } = await read<{ results?: WallEvent[] }>('/dashboard/events/', device);
  const d = objectOf(data);
  if (!Array.isArray(d.results)) throw unexpected();
  return { data: d.results, origin };
}

async function loadOverview(device?: DeviceCredentials): Promise<Loaded<DashboardSummary>> {
  const { data, origin } = await read<DashboardSummary>('/dashboard/summary/', device);
  return { data: objectOf(data), origin };
}

export const LOADERS: Loaders = {
  vulnerabilities: loadVulnerabilities,
  act: (device) => loadQueue({ ssvc: 'act' }, device),
  kev: (device) => loadQueue({ kev: 'true' }, device),
  threats: loadThreats,
  tasks: loadTasks,
  overdue: loadOverdue,
  risks: loadRisks,
  events: loadEvents,
  overview: loadOverview,
};
