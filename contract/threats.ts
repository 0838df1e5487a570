/** Threat statuses as the API spells them, and their French labels. */
export const THREAT_STATUSES = ['ACTIVE', 'INVESTIGATING', 'MITIGATED', 'CLOSED'] as const;
export type ThreatStatus = (typeof THREAT_STATUSES)[number];

export const THREAT_STATUS_LABELS: Record<ThreatStatus, string> = {
  ACTIVE: 'Active',
  INVESTIGATING: 'En investigation',
  MITIGATED: 'Atténuée',
  CLOSED: 'Clôturée',
};
