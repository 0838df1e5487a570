import { REPORT_FILE_EXTENSIONS, SCANNER_LABELS as CONTRACT_SCANNER_LABELS } from '../../../contract/scan-formats.ts';
import type { ReportFormat, ScanAction, ScanStatus } from './scans-api.ts';

export const SCAN_STATUS_LABELS: Record<ScanStatus, string> = {
  PENDING: 'En attente',
  RUNNING: 'En cours',
  COMPLETED: 'Terminé',
  FAILED: 'Échec',
  CANCELLED: 'Annulé',
};

export const SCAN_STATUS_TONE: Record<ScanStatus, string> = {
  PENDING: 'pending',
  RUNNING: 'running',
  COMPLETED: 'ok',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
};

/** Looked up by the scan's scanner as the API sends it (a string): an unknown one shows as it is. */
export const SCANNER_LABELS: Record<string, string> = CONTRACT_SCANNER_LABELS;

export const ACTION_LABELS: Record<ScanAction, string> = {
  start: 'Démarrer',
  restart: 'Relancer',
  cancel: 'Annuler le scan',
};

/**
 * The transitions the server accepts (docs/api-vulnerabilities.md, Scans): start only from PENDING, cancel from
 * PENDING or RUNNING, restart from COMPLETED, FAILED or CANCELLED. Delete is always offered (with confirmation).
 */
export function allowedActions(status: string): ScanAction[] {
  switch (status) {
    case 'PENDING':
      return ['start', 'cancel'];
    case 'RUNNING':
      return ['cancel'];
    case 'COMPLETED':
    case 'FAILED':
    case 'CANCELLED':
      return ['restart'];
    default:
      return [];
  }
}

export function isActive(status: string): boolean {
  return status === 'PENDING' || status === 'RUNNING';
}

/** The file extensions the import form accepts for the chosen format; any of them when the server detects it. */
export const REPORT_EXTENSIONS: Record<ReportFormat, readonly string[]> = {
  // Every format's, '.gz' last (any of them may come compressed).
  auto: [
    ...new Set(
      Object.values(REPORT_FILE_EXTENSIONS)
        .flat()
        .filter((e) => e !== '.gz'),
    ),
    '.gz',
  ],
  ...REPORT_FILE_EXTENSIONS,
};
