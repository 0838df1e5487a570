import type { ScanAction, ScanStatus } from './scans-api.ts';

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

export const SCANNER_LABELS: Record<string, string> = {
  trivy: 'Trivy',
  nmap: 'Nmap',
  openvas: 'OpenVAS',
  manual: 'Manuel',
};

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

export const REPORT_EXTENSIONS: Record<string, readonly string[]> = {
  auto: ['.json', '.xml'],
  trivy: ['.json'],
  nmap: ['.xml'],
  openvas: ['.xml'],
};
