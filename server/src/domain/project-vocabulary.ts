// The words of a project's life (docs/api-projects.md) come from contract/, shared with the client; re-exported here
// under the server's names so the pure scoring rules and the tables share one list.
export {
  DOCUMENT_TYPES,
  PLAN_STATUSES,
  PROJECT_PRIORITIES,
  PROJECT_STATUSES,
  RISK_STATUSES,
  RISK_TREATMENTS,
  TEAM_ROLES,
  WORK_STATUSES as PROJECT_TASK_STATUSES,
  type DocumentType,
  type PlanStatus,
  type ProjectPriority,
  type ProjectStatus,
  type RiskStatus,
  type RiskTreatment,
  type TeamRole,
  type WorkStatus as ProjectTaskStatus,
} from '../../../contract/projects.ts';
