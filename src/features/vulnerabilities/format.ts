import {
  findingSeverityLabel,
  isFindingSeverity,
  isSeveritySource,
  SEVERITY_SOURCE_LABELS,
  type FindingSeverity,
} from '../../../contract/severity.ts';

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

/** A finding's severity as the API spells it: the five scored ones or 'unrated'. */
export function isSeverity(value: unknown): value is FindingSeverity {
  return typeof value === 'string' && isFindingSeverity(value);
}

/**
 * Who gave a finding its severity, in the words that follow it: 'source : NVD', 'source : scanner', or for an
 * analyst 'source : analyste, motif : « … » (la source, CISA ADP, indique : Critique)' while their override
 * stands. Null when the answer does not say (an older backend or a sample).
 */
export function severitySourceText(
  v: Pick<Vulnerability, 'severity_source' | 'severity_reason' | 'rated_severity' | 'rated_source'>,
): string | null {
  if (!v.severity_source || !isSeveritySource(v.severity_source)) return null;
  let text = `source : ${SEVERITY_SOURCE_LABELS[v.severity_source]}`;
  if (v.severity_source === 'analyst' && v.severity_reason?.trim()) text += `, motif : « ${v.severity_reason.trim()} »`;
  if (v.rated_severity) {
    const source =
      v.rated_source && isSeveritySource(v.rated_source) ? `, ${SEVERITY_SOURCE_LABELS[v.rated_source]},` : '';
    text += ` (la source${source} indique : ${findingSeverityLabel(v.rated_severity)})`;
  }
  return text;
}

/** An analyst's override stands: the source's own rating is kept beside it. */
export const hasSeverityOverride = (v: Pick<Vulnerability, 'rated_severity'>): boolean =>
  v.rated_severity !== null && v.rated_severity !== undefined;

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
