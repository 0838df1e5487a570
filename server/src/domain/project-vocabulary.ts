// The words of a project's life (docs/api-projects.md): here, below the schema, so the pure scoring rules and the
// tables share one list without the domain importing the database.

/** Both readings of spec §3 (PLANNED, PLANNING) are kept as sent; ON_HOLD and CANCELLED follow docs/api-projects.md. */
export const PROJECT_STATUSES = ['PLANNED', 'PLANNING', 'IN_PROGRESS', 'ON_HOLD', 'COMPLETED', 'CANCELLED'] as const;
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];
export const PROJECT_PRIORITIES = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;
export type ProjectPriority = (typeof PROJECT_PRIORITIES)[number];
export const TEAM_ROLES = ['ADMIN', 'MEMBER', 'VIEWER'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

/** ISO 27005 / EBIOS RM treatment options: réduire, accepter, partager (transférer), refuser (éviter). */
export const RISK_TREATMENTS = ['REDUCE', 'ACCEPT', 'SHARE', 'AVOID'] as const;
export type RiskTreatment = (typeof RISK_TREATMENTS)[number];
export const RISK_STATUSES = ['IDENTIFIED', 'ASSESSED', 'IN_TREATMENT', 'MONITORED', 'CLOSED'] as const;
export type RiskStatus = (typeof RISK_STATUSES)[number];

export const PLAN_STATUSES = ['DRAFT', 'IN_PROGRESS', 'COMPLETED', 'CANCELLED'] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

export const PROJECT_TASK_STATUSES = ['TODO', 'IN_PROGRESS', 'BLOCKED', 'DONE'] as const;
export type ProjectTaskStatus = (typeof PROJECT_TASK_STATUSES)[number];

export const DOCUMENT_TYPES = ['REPORT', 'CONTRACT', 'EVIDENCE', 'PROCEDURE', 'OTHER'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];
