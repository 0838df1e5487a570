import { isSeverity as isKnownSeverity, SEVERITY_LABELS, type Severity } from '../../../contract/severity.ts';

import { formatDate, formatDateTime, NUMBER, plural } from '../../lib/format.ts';
import { FINDING_STATE_LABELS } from '../../../contract/finding-states.ts';
import type { Vulnerability } from './api/types.ts';

export { formatDate, formatDateTime, NUMBER, plural };
const SCORE = new Intl.NumberFormat('fr-FR', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const PERCENT = new Intl.NumberFormat('fr-FR', {
  style: 'percent',
  minimumFractionDigits: 1,
  maximumFractionDigits: 2,
});
/** CVSS '9,8' */
export function formatScore(value: number | null | undefined): string {
  return typeof value === 'number' && Number.isFinite(value) ? SCORE.format(value) : '—';
}

/** EPSS 0.9731 → '97,31 %' */
export function formatPercent(value: number | null | undefined): string {
  return typeof value === 'number' && Number.isFinite(value) ? PERCENT.format(value) : '—';
}

export function isSeverity(value: unknown): value is Severity {
  return typeof value === 'string' && isKnownSeverity(value);
}

export function severityLabel(value: string | null | undefined): string {
  const v = value?.toLowerCase();
  return isSeverity(v) ? SEVERITY_LABELS[v] : (value ?? '—');
}

/** A CVE record's state as NVD (vulnStatus) or the CVE programme (state) spells it, in French. */
const CVE_STATUS_LABELS: Record<string, string> = {
  published: 'Publiée',
  rejected: 'Rejetée',
  reserved: 'Réservée',
  received: 'Reçue',
  analyzed: 'Analysée',
  modified: 'Modifiée',
  deferred: 'Différée',
  'awaiting analysis': 'En attente d’analyse',
  'undergoing analysis': 'En cours d’analyse',
};

export const cveStatusLabel = (status: string): string => CVE_STATUS_LABELS[status.trim().toLowerCase()] ?? status;

/** A finding's state in words; « Résolue » or « Ouverte » from a backend or sample that only knows is_resolved. */
export const stateText = (v: Pick<Vulnerability, 'state' | 'is_resolved'>): string =>
  v.state ? FINDING_STATE_LABELS[v.state] : v.is_resolved ? 'Résolue' : 'Ouverte';
