import { isSeverity as isKnownSeverity, SEVERITY_LABELS, type Severity } from '../../../contract/severity.ts';

export const NUMBER = new Intl.NumberFormat('fr-FR');
const SCORE = new Intl.NumberFormat('fr-FR', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const PERCENT = new Intl.NumberFormat('fr-FR', {
  style: 'percent',
  minimumFractionDigits: 1,
  maximumFractionDigits: 2,
});
const DATE = new Intl.DateTimeFormat('fr-FR', { day: 'numeric', month: 'short', year: 'numeric' });
const TIME = new Intl.DateTimeFormat('fr-FR', { hour: '2-digit', minute: '2-digit' });

function parse(value: string | null | undefined): Date | null {
  if (!value) return null;
  const d = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T12:00:00` : value);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** '12 nov. 2026' */
export function formatDate(value: string | null | undefined): string {
  const d = parse(value);
  return d ? DATE.format(d) : '—';
}

/** '12 nov. 2026 à 14:05' */
export function formatDateTime(value: string | null | undefined): string {
  const d = parse(value);
  return d ? `${DATE.format(d)} à ${TIME.format(d)}` : '—';
}

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

/** '1 254 vulnérabilités', '1 vulnérabilité', '0 vulnérabilité' */
export function plural(count: number, one: string, many: string): string {
  return `${NUMBER.format(count)} ${count > 1 ? many : one}`;
}
