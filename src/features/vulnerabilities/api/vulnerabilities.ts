import { ApiError, apiRequest, apiRequestWithOrigin, type DataOrigin } from '../../../lib/api-client.ts';
import type {
  Assignee,
  AssetOption,
  Cve,
  CveHit,
  FindingEvent,
  Paged,
  ProjectOption,
  RiskOption,
  Vulnerability,
  VulnerabilitySummary,
} from './types.ts';
import type { FindingState } from '../../../../contract/finding-states.ts';
import { severityCounts, type FindingSeverity } from '../../../../contract/severity.ts';
import { MAX_PAGE_SIZE } from '../../../../contract/paged.ts';

export interface WithOrigin<T> {
  data: T;
  origin: DataOrigin;
}

const BASE = '/vulnerabilities';

type SummaryAnswer = Partial<Omit<VulnerabilitySummary, 'severity_distribution'>> & { severity_distribution?: unknown };

const listOf = <T>(value: T[] | undefined): T[] => (Array.isArray(value) ? value : []);

/**
 * The dashboard summary for the last `days` days: the vulnerability dashboard and the kiosk read it here (its
 * figures, the SSVC Act count), its lists and its six severity counts always there. `allowForbidden` keeps a
 * refusal on the screen (the kiosk) instead of leading to the sign-in page.
 */
export async function fetchSummary(
  days: number,
  { allowForbidden = false }: { allowForbidden?: boolean } = {},
): Promise<WithOrigin<VulnerabilitySummary>> {
  const { data, origin } = await apiRequestWithOrigin<SummaryAnswer | null>(`${BASE}/summary/`, {
    query: { days },
    ...(allowForbidden ? { allowForbidden } : {}),
  });
  if (!data || typeof data !== 'object') throw new ApiError(0, 'Réponse inattendue du serveur.');
  return {
    data: {
      ...data,
      severity_distribution: severityCounts(data.severity_distribution),
      recently_added: listOf(data.recently_added),
      top_affected_assets: listOf(data.top_affected_assets),
      top_cwe_categories: listOf(data.top_cwe_categories),
      vulnerability_trends: listOf(data.vulnerability_trends),
    },
    origin,
  };
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

const itemPath = (id: string | number) => `${BASE}/vulnerabilities/${encodeURIComponent(String(id))}/`;

/**
 * What a person writes of a finding (docs/api-vulnerabilities.md): null clears a field. `severity` is an analyst's
 * rating, sent on creation only (an existing finding's rating changes through `overrideSeverity`, with its reason).
 */
export interface FindingInput {
  title: string;
  cve_id: string | null;
  asset_id: number | null;
  cvss_score: number | null;
  description: string;
  solution: string;
  port: number | null;
  protocol: string | null;
  service: string | null;
  severity?: FindingSeverity;
}

/** spec §7 POST /api/vulnerabilities/vulnerabilities/: a finding entered by hand (201, the new finding). */
export function createVulnerability(body: FindingInput): Promise<Vulnerability> {
  return apiRequest<Vulnerability>(`${BASE}/vulnerabilities/`, {
    method: 'POST',
    body: { ...body },
    allowForbidden: true,
  });
}

/**
 * spec §7 PUT /api/vulnerabilities/vulnerabilities/{id}/: the finding's own fields as the edit form has them (the
 * title is required on PUT). Assignments and due dates keep PATCH (`assignFinding`): they change one or two fields
 * and must not resend, nor require, the rest.
 */
export function updateVulnerability(id: string | number, body: Omit<FindingInput, 'severity'>): Promise<Vulnerability> {
  return apiRequest<Vulnerability>(itemPath(id), { method: 'PUT', body: { ...body }, allowForbidden: true });
}

/** spec §7 DELETE /api/vulnerabilities/vulnerabilities/{id}/ (204). */
export async function deleteVulnerability(id: string | number): Promise<void> {
  await apiRequest<unknown>(itemPath(id), { method: 'DELETE', allowForbidden: true });
}

/** A move through the lifecycle (a justification where the state needs one, an expiry for an accepted risk). */
export function moveFinding(
  id: string | number,
  move: { state: FindingState; comment?: string; accepted_until?: string },
): Promise<Vulnerability> {
  return apiRequest<Vulnerability>(`${itemPath(id)}transition/`, { method: 'POST', body: move, allowForbidden: true });
}

/**
 * Assignee and due date (null clears them). PATCH, deliberately, where spec §7 names PUT: the change concerns these
 * two fields only, and a PUT would have to resend (and require) the finding's title and other fields
 * (docs/api-vulnerabilities.md lists PATCH beside PUT). The finding's own fields go by PUT: `updateVulnerability`.
 */
export function assignFinding(
  id: string | number,
  change: { assignee_id?: number | null; due_date?: string | null },
): Promise<Vulnerability> {
  return apiRequest<Vulnerability>(itemPath(id), { method: 'PATCH', body: change, allowForbidden: true });
}

/** An analyst's severity, with its reason (the finding keeps its source's rating beside it). */
export function overrideSeverity(
  id: string | number,
  change: { severity: FindingSeverity; reason: string },
): Promise<Vulnerability> {
  return apiRequest<Vulnerability>(`${itemPath(id)}severity/`, { method: 'POST', body: change, allowForbidden: true });
}

/** Drops the analyst's severity: the finding is back on its source's rating. */
export function revertSeverity(id: string | number): Promise<Vulnerability> {
  return apiRequest<Vulnerability>(`${itemPath(id)}severity/`, { method: 'DELETE', allowForbidden: true });
}

export function fetchHistory(id: string | number): Promise<FindingEvent[]> {
  return apiRequest<FindingEvent[]>(`${itemPath(id)}history/`);
}

export function addComment(id: string | number, comment: string): Promise<FindingEvent> {
  return apiRequest<FindingEvent>(`${itemPath(id)}comments/`, {
    method: 'POST',
    body: { comment },
    allowForbidden: true,
  });
}

export interface SlaReport {
  open_with_due_date: number;
  overdue: number;
  due_soon: number;
  resolved_in_window: number;
  resolved_on_time: number;
  window_days: number;
  generated_at: string;
}

export function fetchSlaReport(): Promise<WithOrigin<SlaReport>> {
  return apiRequestWithOrigin<SlaReport>(`${BASE}/sla-report/`);
}

/** The tenant's triage settings (issue 21): days to fix per severity (null: no deadline) and the SSVC EPSS threshold. */
export interface TriageSettings {
  critical: number | null;
  high: number | null;
  medium: number | null;
  low: number | null;
  info: number | null;
  /** Days to rate and treat a « Non évaluée » finding; absent from an older backend's answer. */
  unrated?: number | null;
  /** A probability (0.1 for 10 %). */
  epss_threshold: number;
}

export function fetchTriageSettings(): Promise<WithOrigin<TriageSettings>> {
  return apiRequestWithOrigin<TriageSettings>(`${BASE}/sla/`);
}

/** Tenant administrators only (the server refuses others). */
export function saveTriageSettings(settings: TriageSettings): Promise<TriageSettings> {
  return apiRequest<TriageSettings>(`${BASE}/sla/`, { method: 'PUT', body: { ...settings }, allowForbidden: true });
}

export interface BulkResult {
  selected: number;
  changed: number;
  unchanged: number;
  refused: number;
}

/** A bulk action on every finding of a filter may take minutes: as long as the server's import statements may. */
export const BULK_TIMEOUT_MS = 300_000;

/** Many findings at once: `ids`, or `filter` (every finding it matches, chosen by the server). */
export function applyBulk(body: Record<string, unknown>): Promise<BulkResult> {
  return apiRequest<BulkResult>(`${BASE}/bulk/`, {
    method: 'POST',
    body,
    allowForbidden: true,
    timeoutMs: BULK_TIMEOUT_MS,
  });
}

/** The projects area's largest page. */
const PROJECT_PAGE = 100;

/** The projects the caller may link findings to (edit or manage access), by name; an empty list when unreadable. */
export async function fetchEditableProjects(): Promise<ProjectOption[]> {
  try {
    const page = await apiRequest<Paged<ProjectOption & { access?: string }>>('/projects/', {
      query: { page: 1, page_size: PROJECT_PAGE, ordering: 'name' },
    });
    return page.results.filter((p) => p.access !== 'read').map((p) => ({ id: p.id, name: p.name }));
  } catch {
    return [];
  }
}

/** The risks of the projects the caller reads (the highest residual scores first, one page). */
export async function fetchRiskOptions(): Promise<RiskOption[]> {
  try {
    const page = await apiRequest<Paged<RiskOption>>('/projects/risks/', {
      query: { page: 1, page_size: PROJECT_PAGE },
    });
    return page.results.map((r) => ({ id: r.id, project: r.project, title: r.title, vulnerability: r.vulnerability }));
  } catch {
    return [];
  }
}

/** A risk names one finding: this one (the risk's previous finding, if any, is replaced). */
export function linkRisk(riskId: number, findingId: number): Promise<RiskOption> {
  return apiRequest<RiskOption>(`/projects/risks/${riskId}/`, {
    method: 'PATCH',
    body: { vulnerability: findingId },
    allowForbidden: true,
  });
}

/** The tenant's members a finding may be assigned to; an empty list when they cannot be read. */
export async function fetchAssignees(): Promise<Assignee[]> {
  try {
    return await apiRequest<Assignee[]>(`${BASE}/assignees/`);
  } catch {
    return [];
  }
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
