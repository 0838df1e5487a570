import type { AssetFields } from '../../../contract/assets.ts';
import type {
  DocumentType,
  PlanStatus,
  ProjectPriority,
  ProjectStatus,
  RiskLevel,
  RiskStatus,
  RiskTreatment,
  TeamRole,
  WorkStatus,
} from '../../../contract/projects.ts';

/** The wire types of docs/api-projects.md; the enums are the contract's. */
export type * from '../../../contract/projects.ts';
export type { Paged } from '../../../contract/paged.ts';

export type Id = number | string;
export type ProjectAccess = 'read' | 'edit' | 'manage';

export interface TeamMember {
  id: Id;
  name: string;
  email: string;
  role: TeamRole;
  is_owner: boolean;
  last_active: string | null;
}

export interface ProjectOwner {
  id: Id;
  name?: string;
  email?: string;
  /** Older backends (and the sample data) send the username instead of the name. */
  username?: string;
}

export interface Project {
  id: Id;
  name: string;
  description: string | null;
  status: ProjectStatus;
  priority: ProjectPriority;
  completion_percentage: number;
  start_date: string | null;
  deadline: string | null;
  created_at: string;
  updated_at: string;
  assets: Id[];
  vulnerabilities: Id[];
  tasks: Id[];
  team_members: TeamMember[];
  owner: ProjectOwner | null;
  is_active: boolean;
  /** The caller's access; absent from other backends and from sample data (read only then). */
  access?: ProjectAccess;
}

export interface ProjectInput {
  name?: string;
  description?: string;
  status?: ProjectStatus;
  priority?: ProjectPriority;
  start_date?: string | null;
  deadline?: string | null;
  is_active?: boolean;
  owner_id?: Id;
}

export interface ActivityEntry {
  id: Id;
  action: string;
  object_type: string;
  object_id: Id | null;
  summary: string;
  user: { id: Id; name?: string; username?: string } | string | null;
  created_at: string;
}

export interface OverdueItem {
  id: Id;
  title: string;
  due_date: string | null;
  progress: number;
  plan_id?: Id;
}

export interface ProjectDashboard {
  project: Pick<Project, 'id' | 'name' | 'status' | 'priority' | 'completion_percentage' | 'deadline'>;
  counts: {
    assets: number;
    vulnerabilities: number;
    open_vulnerabilities: number;
    threats: number;
    active_threats: number;
    risks: number;
    tasks: number;
    corrective_actions: number;
    documents: number;
    team_members: number;
  };
  vulnerabilities_by_severity: { critical: number; high: number; medium: number; low: number; info: number };
  tasks_by_status: Record<WorkStatus, number>;
  risks_by_level: Record<RiskLevel, number>;
  /** risk_matrix[impact - 1][likelihood - 1]: open risks by residual scores. */
  risk_matrix: number[][];
  overdue: { tasks: OverdueItem[]; corrective_actions: OverdueItem[] };
  recent_activity: ActivityEntry[];
}

export interface Risk {
  id: Id;
  project: Id;
  title: string;
  description: string;
  scenario: string;
  asset: Id | null;
  threat: Id | null;
  vulnerability: Id | null;
  likelihood: number;
  impact: number;
  initial_score: number;
  initial_level: RiskLevel;
  residual_likelihood: number;
  residual_impact: number;
  residual_score: number;
  residual_level: RiskLevel;
  treatment: RiskTreatment;
  status: RiskStatus;
  owner: Id | null;
  remediation_plan: Id | null;
  created_at: string;
  updated_at: string;
}

export interface RiskInput {
  project?: Id;
  title: string;
  description: string;
  scenario: string;
  likelihood: number;
  impact: number;
  treatment: RiskTreatment;
  status: RiskStatus;
  /** The risk's owner (a tenant member), or null. */
  owner?: Id | null;
}

export interface RemediationPlan {
  id: Id;
  risk: Id;
  project: Id;
  title: string;
  description: string;
  status: PlanStatus;
  target_likelihood: number;
  target_impact: number;
  owner: Id | null;
  due_date: string | null;
  progress: number;
  actions_count: number;
  created_at: string;
  updated_at: string;
}

export interface PlanInput {
  risk: Id;
  title: string;
  description?: string;
  target_likelihood: number;
  target_impact: number;
  due_date?: string | null;
}

/** A plan's editable fields (PATCH sends only those that changed; the risk cannot change). */
export interface PlanUpdate {
  title?: string;
  description?: string;
  status?: PlanStatus;
  target_likelihood?: number;
  target_impact?: number;
  owner?: Id | null;
  due_date?: string | null;
}

export interface CorrectiveAction {
  id: Id;
  remediation_plan: Id;
  project: Id;
  title: string;
  description: string;
  assignee: Id | null;
  due_date: string | null;
  progress: number;
  status: 'TODO' | 'IN_PROGRESS' | 'DONE';
  completed_at: string | null;
  is_overdue: boolean;
  created_at: string;
  updated_at: string;
}

export interface ActionInput {
  title: string;
  description?: string;
  due_date?: string | null;
}

/** A corrective action's editable fields (PATCH sends only those that changed). */
export interface ActionUpdate {
  title?: string;
  description?: string;
  assignee?: Id | null;
  due_date?: string | null;
}

export interface ProjectTask {
  id: Id;
  project: Id;
  title: string;
  description: string;
  status: WorkStatus;
  priority: ProjectPriority;
  assignee: Id | null;
  due_date: string | null;
  progress: number;
  completed_at: string | null;
  is_overdue: boolean;
  created_at: string;
  updated_at: string;
}

export interface TaskInput {
  project?: Id;
  title?: string;
  description?: string;
  status?: WorkStatus;
  priority?: ProjectPriority;
  due_date?: string | null;
  /** A tenant member, or null for nobody. */
  assignee?: Id | null;
}

export interface ProjectAsset extends AssetFields {
  id: Id;
  project: Id;
  asset_id: Id;
  vulnerabilities_count: number;
  created_at: string;
  updated_at: string;
}

export interface ProjectVulnerability {
  id: Id;
  project: Id;
  vulnerability_id: Id;
  title: string;
  cve_id: string | null;
  severity: string;
  cvss_score: number | null;
  kev?: boolean;
  epss_score?: number | null;
  asset: { id: Id; name: string } | null;
  is_resolved: boolean;
  resolved_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ProjectThreat {
  id: Id;
  project: Id;
  threat_id: Id;
  title: string;
  severity: string;
  status: string;
  is_mitigated: boolean;
  mitigated_at?: string | null;
  threat_type?: string;
  created_at: string;
  updated_at: string;
}

/** A finding on a linked asset, as the findings API shows it (GET /projects/assets/{id}/vulnerabilities/). */
export interface AssetFinding {
  id: Id;
  title: string;
  cve_id: string | null;
  severity: string;
  cvss_score: number | null;
  kev?: boolean;
  state?: string;
  is_resolved: boolean;
  created_at: string;
}

/** A threat on a linked asset, as the threats API shows it (GET /projects/assets/{id}/threats/). */
export interface AssetThreat {
  id: Id;
  title: string;
  threat_type?: string;
  severity: string;
  status: string;
  is_mitigated: boolean;
  created_at: string;
}

export interface ProjectDocument {
  id: Id;
  name: string;
  title: string;
  file: string;
  project: Id;
  description: string;
  document_type: DocumentType;
  file_size: number;
  file_type: string;
  sha256?: string;
  uploaded_by?: { id: Id; name?: string; username?: string } | Id | null;
  created_at: string;
  updated_at: string;
}

/** A user of the tenant, to pick a new team member. */
export interface TenantUser {
  id: Id;
  username: string;
  email: string;
  first_name?: string;
  last_name?: string;
}
