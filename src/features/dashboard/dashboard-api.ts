import { apiRequestWithOrigin, ApiError } from '../../lib/api-client.ts';
import type { Sourced } from '../../lib/use-resource.ts';
import type { FindingSeverity } from '../../../contract/severity.ts';
import type { HeatCell } from '../../components/risk-matrix.tsx';

/** GET /api/dashboard/summary/: the tenant's figures (docs/api-vulnerabilities.md, Home dashboard). */
export interface HomeSummary {
  vulnerabilities: { total: number; open: number; critical: number; high: number; kev: number; resolved: number };
  assets: { total: number; critical: number };
  threats: { total: number; active: number };
  scans: { total: number; running: number; last_completed_at: string | null };
  tasks: { running: number; failed_24h: number };
  last_cve_update: string | null;
  generated_at: string;
}

export interface WorkItem {
  kind: 'task' | 'action';
  id: number;
  title: string;
  project: { id: number; name: string };
  due_date: string | null;
  progress: number;
  status: string | null;
  priority: string | null;
  overdue: boolean;
}

/** GET /api/dashboard/my-work/: the signed-in user's open work and the risks of the projects they can read. */
export interface HomeWork {
  work: { total: number; overdue: number; items: WorkItem[] };
  risks: { open: number; projects: number; initial: HeatCell[]; residual: HeatCell[] };
  generated_at: string;
}

/** A finding as the home page lists it (a row of GET /api/vulnerabilities/vulnerabilities/). */
export interface PriorityFinding {
  id: number;
  title: string;
  cve_id: string | null;
  severity: FindingSeverity;
  cvss_score: number | null;
  kev: boolean;
  asset: { id: number; name: string } | string | null;
}

export interface RecentNotification {
  id: number;
  title: string;
  created_at: string;
  read: boolean;
  level: string;
  link: string | null;
}

/** How many findings, notifications and work items the home page lists. */
export const HOME_LIST_SIZE = 5;

const object = (data: unknown): data is Record<string, unknown> => typeof data === 'object' && data !== null;

/**
 * The answer at `path` when it has the shape `fits` checks (an older backend, a proxy's page or mock mode's empty
 * list is « Réponse inattendue du serveur. », never a half-drawn screen).
 */
async function read<T>(
  path: string,
  query: Record<string, string | number> = {},
  fits: (data: Record<string, unknown>) => boolean = () => true,
): Promise<Sourced<T>> {
  const { data, origin } = await apiRequestWithOrigin<unknown>(path, { query, allowForbidden: true });
  if (!object(data) || !fits(data)) throw new ApiError(0, 'Réponse inattendue du serveur.');
  return { data: data as T, origin };
}

const isSummary = (d: Record<string, unknown>) =>
  ['vulnerabilities', 'assets', 'threats', 'scans', 'tasks'].every((k) => object(d[k]));

const isWork = (d: Record<string, unknown>) =>
  object(d.work) &&
  Array.isArray(d.work.items) &&
  object(d.risks) &&
  Array.isArray(d.risks.initial) &&
  Array.isArray(d.risks.residual);

export const fetchHomeSummary = () => read<HomeSummary>('/dashboard/summary/', {}, isSummary);

export const fetchHomeWork = () => read<HomeWork>('/dashboard/my-work/', {}, isWork);

/** The open critical findings, highest CVSS first. */
export async function fetchPriorityFindings(): Promise<Sourced<{ count: number; results: PriorityFinding[] }>> {
  const answer = await read<{ count?: number; results?: PriorityFinding[] }>('/vulnerabilities/vulnerabilities/', {
    severity: 'critical',
    is_resolved: 'false',
    ordering: '-cvss_score',
    page_size: HOME_LIST_SIZE,
  });
  const results = Array.isArray(answer.data.results) ? answer.data.results : [];
  return { ...answer, data: { count: answer.data.count ?? results.length, results } };
}

/** The newest notifications of the current tenant. */
export async function fetchRecentNotifications(): Promise<Sourced<RecentNotification[]>> {
  const answer = await read<{ results?: RecentNotification[] }>('/notifications/notifications/', {
    size: HOME_LIST_SIZE,
  });
  const results = Array.isArray(answer.data.results) ? answer.data.results : [];
  return { ...answer, data: results.slice(0, HOME_LIST_SIZE) };
}
