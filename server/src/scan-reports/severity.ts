import type { FindingSeverity } from '../db/schema.ts';

/** CVSS score → severity (CVSS v3 ratings; 0 is informational; no score at all is « Non évaluée », not Info). */
export function severityFromScore(score: number | undefined): FindingSeverity {
  if (score === undefined || !Number.isFinite(score)) return 'unrated';
  if (score <= 0) return 'info';
  if (score >= 9) return 'critical';
  if (score >= 7) return 'high';
  if (score >= 4) return 'medium';
  return 'low';
}

const NAMED: Record<string, FindingSeverity> = {
  critical: 'critical',
  high: 'high',
  medium: 'medium',
  moderate: 'medium',
  low: 'low',
  info: 'info',
  informational: 'info',
  negligible: 'info',
  unknown: 'unrated',
  unrated: 'unrated',
  unassigned: 'unrated',
  log: 'info',
  none: 'info',
};

export function severityFromName(name: string | undefined): FindingSeverity | undefined {
  const key = name?.trim().toLowerCase();
  // Own keys only: a report's `constructor` must not find Object's.
  return key !== undefined && Object.hasOwn(NAMED, key) ? NAMED[key] : undefined;
}

export function parseScore(raw: unknown): number | undefined {
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
  return Number.isFinite(n) && n >= 0 && n <= 10 ? n : undefined;
}

export const CVE_RE = /^CVE-\d{4}-\d{4,}$/;
