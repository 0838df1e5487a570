import { apiRequest, apiRequestWithOrigin, type DataOrigin } from '../../lib/api-client.ts';
import { MAX_PAGE_SIZE, type Paged } from '../../../contract/paged.ts';
import type { ReportFormat as ContractReportFormat } from '../../../contract/scan-formats.ts';
import type { FindingSeverity } from '../../../contract/severity.ts';
import { uploadForm, type UploadProgress } from '../../lib/upload.ts';
import { currentTenantId, refreshTokens, session } from '../../lib/auth/session.ts';

export type ScanStatus = 'PENDING' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELLED';
export type { Scanner } from '../../../contract/scan-formats.ts';
export type { Severity } from '../../../contract/severity.ts';
export type ScanAction = 'start' | 'restart' | 'cancel';
/** The import's format: one of the contract's, or 'auto' for the server to detect it from the content. */
export type ReportFormat = 'auto' | ContractReportFormat;

export interface ScanSummary {
  findings?: number;
  created?: number;
  updated?: number;
  assets_created?: number;
  /** Findings per severity, « Non évaluée » included (an older import's summary lacks it: 0). */
  by_severity?: Partial<Record<FindingSeverity, number>>;
  /** The re-scan reconciliation (issue 21). */
  still_present?: number;
  reopened?: number;
  fixed?: number;
}

/** A finding a scan's reconciliation moved: reopened, or closed as fixed. */
export interface ScanChange {
  vulnerability_id: number;
  title: string;
  cve_id: string | null;
  from_value: string | null;
  to_value: string | null;
  created_at: string;
}

export function fetchScan(id: string): Promise<{ data: Scan; origin: DataOrigin }> {
  return apiRequestWithOrigin<Scan>(`${SCANS_PATH}${encodeURIComponent(id)}/`);
}

export function fetchScanChanges(id: string): Promise<{ data: ScanChange[]; origin: DataOrigin }> {
  return apiRequestWithOrigin<ScanChange[]>(`${SCANS_PATH}${encodeURIComponent(id)}/changes/`);
}

export interface Scan {
  id: number | string;
  name: string;
  scanner: string;
  target: string | null;
  asset_id: number | string | null;
  status: ScanStatus;
  progress: number | null;
  task_id: string | null;
  report_format: string | null;
  report_size: number | null;
  summary: ScanSummary | null;
  error: string | null;
  created_by?: unknown;
  started_at: string | null;
  completed_at: string | null;
  created_at: string;
  updated_at?: string;
}

export type { Paged } from '../../../contract/paged.ts';

export interface ScanQuery {
  page: number;
  page_size: number;
  status?: string | undefined;
  scanner?: string | undefined;
}

export const SCANS_PATH = '/vulnerabilities/scans/';

export function listScans(query: ScanQuery): Promise<{ data: Paged<Scan>; origin: DataOrigin }> {
  const q: Record<string, string | number> = { page: query.page, page_size: query.page_size };
  if (query.status) q.status = query.status;
  if (query.scanner) q.scanner = query.scanner;
  return apiRequestWithOrigin<Paged<Scan>>(SCANS_PATH, { query: q, allowForbidden: true });
}

export function createScan(body: { name: string; scanner: string; target?: string; asset_id?: number }): Promise<Scan> {
  return apiRequest<Scan>(SCANS_PATH, { method: 'POST', body, allowForbidden: true });
}

/** What a scan's PUT carries (spec §7 PUT .../scans/{id}/): every field, since PUT replaces them all. */
export interface ScanInput {
  name: string;
  scanner: string;
  target: string | null;
  asset_id: number | null;
}

/** spec §7 PUT /api/vulnerabilities/scans/{id}/: the scan's name, scanner, target and asset, as given. */
export function updateScan(id: Scan['id'], body: ScanInput): Promise<Scan> {
  return apiRequest<Scan>(`${SCANS_PATH}${encodeURIComponent(String(id))}/`, {
    method: 'PUT',
    body: { ...body },
    allowForbidden: true,
  });
}

/** The tenant's assets a scan may name (names only, by name); an empty list when they cannot be read. */
export async function fetchAssetChoices(): Promise<{ id: number | string; name: string }[]> {
  try {
    const page = await apiRequest<Paged<{ id: number | string; name: string }>>('/assets/', {
      query: { page: 1, page_size: MAX_PAGE_SIZE, ordering: 'name' },
    });
    return page.results.map((a) => ({ id: a.id, name: a.name }));
  } catch {
    return [];
  }
}

export function runScanAction(id: Scan['id'], action: ScanAction): Promise<Scan> {
  return apiRequest<Scan>(`${SCANS_PATH}${id}/${action}/`, { method: 'POST', allowForbidden: true });
}

export function deleteScan(id: Scan['id']): Promise<unknown> {
  return apiRequest<unknown>(`${SCANS_PATH}${id}/`, { method: 'DELETE', allowForbidden: true });
}

export interface ImportRequest {
  file: File;
  name?: string | undefined;
  format: ReportFormat;
  start: boolean;
  asset_id?: number | undefined;
}

/** Multipart POST of a scanner report, with upload progress; same session headers as api-client. */
export async function importReport(
  req: ImportRequest,
  opts: { onProgress?: (p: UploadProgress) => void; signal?: AbortSignal } = {},
): Promise<Scan> {
  const form = new FormData();
  if (req.name) form.append('name', req.name);
  form.append('format', req.format);
  form.append('start', String(req.start));
  if (req.asset_id !== undefined) form.append('asset_id', String(req.asset_id));
  // The file last: multipart parsers read the small fields before the large part.
  form.append('file', req.file, req.file.name);
  const { data } = await uploadForm<Scan>(`${SCANS_PATH}import/`, form, {
    ...opts,
    timeoutMs: 10 * 60_000,
    auth: () => ({ token: session.value?.tokens.access_token, tenantId: currentTenantId() }),
    refresh: () => refreshTokens({ retryPath: true }),
  });
  return data;
}
