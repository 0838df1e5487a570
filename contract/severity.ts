/** Finding severities as the API spells them, most serious first, and their French labels. */
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const SEVERITY_LABELS: Record<Severity, string> = {
  critical: 'Critique',
  high: 'Élevée',
  medium: 'Moyenne',
  low: 'Faible',
  info: 'Info',
};

/**
 * A finding's or a CVE record's severity: the scored scale, or « Non évaluée » when nothing rated it (a CVE without
 * CVSS, a scanner that gave none). Unrated is never Info: it has its own filter, count and colour, and sorts after
 * Info (issue 21, docs/severity.md).
 */
export const FINDING_SEVERITIES = [...SEVERITIES, 'unrated'] as const;
export type FindingSeverity = (typeof FINDING_SEVERITIES)[number];

/**
 * Counts per severity with every one present: 0 for those `from` lacks or does not hold as a number (an answer, or a
 * summary stored, before « Non évaluée » existed; a cached or sample answer of another shape). `from`: an object
 * keyed by severity, or a Map.
 */
export function severityCounts(from?: unknown): Record<FindingSeverity, number> {
  const read = (s: FindingSeverity): unknown =>
    from instanceof Map
      ? from.get(s)
      : typeof from === 'object' && from !== null
        ? (from as Record<string, unknown>)[s]
        : 0;
  const count = (s: FindingSeverity) => {
    const n = read(s);
    return typeof n === 'number' && Number.isFinite(n) ? n : 0;
  };
  return Object.fromEntries(FINDING_SEVERITIES.map((s) => [s, count(s)])) as Record<FindingSeverity, number>;
}

export const FINDING_SEVERITY_LABELS: Record<FindingSeverity, string> = { ...SEVERITY_LABELS, unrated: 'Non évaluée' };

/**
 * Who gave a finding its severity: the scanner's report, the CVE store's CVSS (NVD's own score, the CNA's, or CISA's
 * ADP « Vulnrichment »), or an analyst (a finding typed in by hand, or a rating overridden with a reason).
 */
export const SEVERITY_SOURCES = ['scanner', 'nvd', 'cna', 'adp', 'analyst'] as const;
export type SeveritySource = (typeof SEVERITY_SOURCES)[number];
export const SEVERITY_SOURCE_LABELS: Record<SeveritySource, string> = {
  scanner: 'scanner',
  nvd: 'NVD',
  cna: 'CNA',
  adp: 'CISA ADP',
  analyst: 'analyste',
};
/** Where a CVE record's CVSS comes from. */
export type CvssSource = Exclude<SeveritySource, 'scanner' | 'analyst'>;

/** The same labels where a badge or a filter spells « info » out (threats, a project's findings). */
export const SEVERITY_FULL_LABELS: Record<Severity, string> = { ...SEVERITY_LABELS, info: 'Information' };

/** Asset criticality: the four upper severities, least serious first as the API lists them. */
export const CRITICALITIES = ['low', 'medium', 'high', 'critical'] as const;
export type Criticality = (typeof CRITICALITIES)[number];

/** The severities' words, most serious first (the order of the pickers). */
export const CRITICALITY_LABELS = Object.fromEntries(
  [...CRITICALITIES].reverse().map((c) => [c, SEVERITY_LABELS[c]]),
) as Record<Criticality, string>;

export const isSeverity = (value: string): value is Severity => (SEVERITIES as readonly string[]).includes(value);
export const isFindingSeverity = (value: string): value is FindingSeverity =>
  (FINDING_SEVERITIES as readonly string[]).includes(value);
/** 'Critique', 'Non évaluée' (any case); an unknown value as it is, '—' for none. */
export function findingSeverityLabel(value: string | null | undefined): string {
  const v = value?.toLowerCase();
  return v !== undefined && isFindingSeverity(v) ? FINDING_SEVERITY_LABELS[v] : (value ?? '—');
}
export const isSeveritySource = (value: string): value is SeveritySource =>
  (SEVERITY_SOURCES as readonly string[]).includes(value);
export const isCriticality = (value: string): value is Criticality =>
  (CRITICALITIES as readonly string[]).includes(value);
