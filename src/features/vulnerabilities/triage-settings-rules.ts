import { FINDING_SEVERITIES, SEVERITY_FULL_LABELS, type FindingSeverity } from '../../../contract/severity.ts';
import type { TriageSettings } from './api/vulnerabilities.ts';

// The triage settings form (issue 21): days to fix per severity, and the EPSS threshold in percent, checked with the
// server's rules (routes/api/vulnerabilities/triage.ts) before sending.

export const MAX_SLA_DAYS = 3650;

/** What the form holds: texts as typed (empty days: no deadline; the threshold in percent). */
export type TriageDraft = Record<FindingSeverity, string> & { epss_percent: string };

/** Each row's label: « Non évaluée » too has its days (to rate and treat it), none by default. */
export const SLA_LABELS: Record<FindingSeverity, string> = { ...SEVERITY_FULL_LABELS, unrated: 'Non évaluée' };

const PERCENT = new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 2 });

export function draftOf(s: TriageSettings): TriageDraft {
  const days = Object.fromEntries(FINDING_SEVERITIES.map((sev) => [sev, String(s[sev] ?? '')]));
  return { ...(days as Record<FindingSeverity, string>), epss_percent: PERCENT.format(s.epss_threshold * 100) };
}

const DAYS_MESSAGE = `Un nombre entier de jours entre 1 et ${MAX_SLA_DAYS}, ou vide pour aucun délai.`;
const EPSS_MESSAGE = 'Un pourcentage supérieur à 0 et au plus 100 (10 par défaut).';

/** « 10 », « 2,5 », « 0.5 »: a number written the French way or not; NaN otherwise. */
function numberOf(text: string): number {
  const t = text.trim().replace(/\s/g, '').replace(',', '.');
  return /^\d+(\.\d+)?$/.test(t) ? Number(t) : Number.NaN;
}

export function validateTriage(d: TriageDraft): Partial<Record<keyof TriageDraft, string>> {
  const errors: Partial<Record<keyof TriageDraft, string>> = {};
  for (const sev of FINDING_SEVERITIES) {
    const t = d[sev].trim();
    if (t === '') continue;
    const n = numberOf(t);
    if (!Number.isInteger(n) || n < 1 || n > MAX_SLA_DAYS) errors[sev] = DAYS_MESSAGE;
  }
  const p = numberOf(d.epss_percent);
  if (!(p > 0 && p <= 100)) errors.epss_percent = EPSS_MESSAGE;
  return errors;
}

/** The body of the PUT: days or null, the threshold as a probability. */
export function settingsOf(d: TriageDraft): TriageSettings {
  const days = Object.fromEntries(
    FINDING_SEVERITIES.map((sev) => [sev, d[sev].trim() === '' ? null : numberOf(d[sev])]),
  );
  // Rounded so that 10 % is 0.1, not 0.1000000000000000055.
  const epss = Math.round(numberOf(d.epss_percent) * 100) / 10_000;
  return { ...(days as Record<FindingSeverity, number | null>), epss_threshold: epss };
}
