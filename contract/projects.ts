/** A project's enums as the API spells them (docs/api-projects.md), and the French labels both sides use. */
export const PROJECT_STATUSES = ['PLANNED', 'PLANNING', 'IN_PROGRESS', 'ON_HOLD', 'COMPLETED', 'CANCELLED'] as const;
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];

/** The status changes a project may go through (PLANNED and PLANNING freely between them); staying put is allowed. */
export const PROJECT_STATUS_TRANSITIONS: Record<ProjectStatus, readonly ProjectStatus[]> = {
  PLANNED: ['PLANNING', 'IN_PROGRESS', 'ON_HOLD', 'CANCELLED'],
  PLANNING: ['PLANNED', 'IN_PROGRESS', 'ON_HOLD', 'CANCELLED'],
  IN_PROGRESS: ['ON_HOLD', 'COMPLETED', 'CANCELLED'],
  ON_HOLD: ['IN_PROGRESS', 'CANCELLED'],
  COMPLETED: ['IN_PROGRESS'],
  CANCELLED: ['PLANNED'],
};

/** PLANNED and PLANNING are two readings of the same status: one label. */
export const PROJECT_STATUS_LABELS: Record<ProjectStatus, string> = {
  PLANNED: 'Planifié',
  PLANNING: 'Planifié',
  IN_PROGRESS: 'En cours',
  ON_HOLD: 'En pause',
  COMPLETED: 'Terminé',
  CANCELLED: 'Annulé',
};

export const PROJECT_PRIORITIES = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;
export type ProjectPriority = (typeof PROJECT_PRIORITIES)[number];

export const TEAM_ROLES = ['ADMIN', 'MEMBER', 'VIEWER'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

/** Risk levels on the 4 × 4 matrix, least serious first. */
export const RISK_LEVELS = ['low', 'medium', 'high', 'critical'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

export const RISK_LEVEL_LABELS: Record<RiskLevel, string> = {
  low: 'Faible',
  medium: 'Modéré',
  high: 'Élevé',
  critical: 'Critique',
};

/** A score's level on the 4 × 4 matrix: 1–3 low, 4–6 medium, 8–9 high, 12–16 critical. */
export function riskLevelOf(score: number): RiskLevel {
  if (score <= 3) return 'low';
  if (score <= 6) return 'medium';
  if (score <= 9) return 'high';
  return 'critical';
}

/** The matrix's scale (ISO 27005 / EBIOS RM): likelihood and impact from 1 to 4. */
export const RISK_SCALE = [1, 2, 3, 4] as const;

export const LIKELIHOOD_LABELS: Record<number, string> = {
  1: 'Minime',
  2: 'Significative',
  3: 'Forte',
  4: 'Maximale',
};

export const IMPACT_LABELS: Record<number, string> = {
  1: 'Mineure',
  2: 'Significative',
  3: 'Grave',
  4: 'Critique',
};

export const RISK_TREATMENTS = ['REDUCE', 'ACCEPT', 'SHARE', 'AVOID'] as const;
export type RiskTreatment = (typeof RISK_TREATMENTS)[number];

export const RISK_STATUSES = ['IDENTIFIED', 'ASSESSED', 'IN_TREATMENT', 'MONITORED', 'CLOSED'] as const;
export type RiskStatus = (typeof RISK_STATUSES)[number];

export const PLAN_STATUSES = ['DRAFT', 'IN_PROGRESS', 'COMPLETED', 'CANCELLED'] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

/** Statuses of a project's tasks (corrective actions use all but BLOCKED). */
export const WORK_STATUSES = ['TODO', 'IN_PROGRESS', 'BLOCKED', 'DONE'] as const;
export type WorkStatus = (typeof WORK_STATUSES)[number];

export const DOCUMENT_TYPES = ['REPORT', 'CONTRACT', 'EVIDENCE', 'PROCEDURE', 'OTHER'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];
