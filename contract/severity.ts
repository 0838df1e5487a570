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
export const isCriticality = (value: string): value is Criticality =>
  (CRITICALITIES as readonly string[]).includes(value);
