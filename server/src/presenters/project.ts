import {
  FINDING_SEVERITIES,
  PROJECT_PRIORITIES,
  PROJECT_STATUSES,
  PROJECT_TASK_STATUSES,
  TEAM_ROLES,
} from '../db/schema.ts';
import { severityCounts } from '../../../contract/severity.ts';
import type { ProjectAccess } from '../policies/index.ts';
import {
  displayName,
  type ProjectDashboardData,
  type ProjectRow,
  type TeamMemberRow,
} from '../repositories/projects.ts';
import { RISK_LEVELS, riskLevel } from '../domain/risk-scoring.ts';
import { Choice, Nullable, Type, type Static } from '../schemas/common.ts';

const iso = (d: Date | null) => d?.toISOString() ?? null;

const DateTime = Type.String({ format: 'date-time' });
/** A calendar day, YYYY-MM-DD. */
const Day = Type.String({ format: 'date' });

/** spec §3 TeamMember: the user's id, display name, email, team role, ownership and last activity. */
export const TeamMemberSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    email: Type.String(),
    role: Choice(TEAM_ROLES),
    is_owner: Type.Boolean(),
    last_active: Nullable(DateTime),
  },
  { title: 'TeamMember' },
);
export type TeamMember = Static<typeof TeamMemberSchema>;

export function presentTeamMember(m: TeamMemberRow): TeamMember {
  return {
    id: m.userId,
    name: displayName(m),
    email: m.email,
    role: m.role,
    is_owner: m.isOwner,
    last_active: iso(m.lastActiveAt ?? m.lastLogin),
  };
}

const PROJECT_ACCESSES = ['read', 'edit', 'manage'] as const satisfies readonly Exclude<ProjectAccess, 'none'>[];

/** One project (docs/api-projects.md `Project`) with the caller's access: exactly these fields leave the server. */
export const ProjectSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    description: Type.String(),
    status: Choice(PROJECT_STATUSES),
    priority: Choice(PROJECT_PRIORITIES),
    completion_percentage: Type.Number({ minimum: 0, maximum: 100 }),
    start_date: Nullable(Day),
    deadline: Nullable(Day),
    created_at: DateTime,
    updated_at: DateTime,
    assets: Type.Array(Type.Integer(), { description: 'Identifiants des liens actif ↔ projet' }),
    vulnerabilities: Type.Array(Type.Integer(), { description: 'Identifiants des liens vulnérabilité ↔ projet' }),
    tasks: Type.Array(Type.Integer()),
    team_members: Type.Array(TeamMemberSchema),
    owner: Nullable(Type.Object({ id: Type.Integer(), name: Type.String(), email: Type.String() })),
    is_active: Type.Boolean(),
    access: Choice(PROJECT_ACCESSES, { description: 'Ce que l’appelant peut faire du projet' }),
  },
  { title: 'Project' },
);
export type Project = Static<typeof ProjectSchema>;

export function presentProject(p: ProjectRow, access: Exclude<ProjectAccess, 'none'>): Project {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    status: p.status,
    priority: p.priority,
    completion_percentage: p.completion,
    start_date: p.startDate,
    deadline: p.deadline,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
    assets: p.assetLinkIds,
    vulnerabilities: p.vulnerabilityLinkIds,
    tasks: p.taskIds,
    team_members: p.team.map(presentTeamMember),
    owner: p.owner ? { id: p.owner.id, name: p.owner.name, email: p.owner.email } : null,
    is_active: p.isActive,
    access,
  };
}

/** A count for each value of a list: every key appears, zeros included. */
const CountsOf = <K extends string>(keys: readonly K[]) =>
  Type.Object(
    Object.fromEntries(keys.map((k) => [k, Type.Integer({ minimum: 0 })])) as Record<
      K,
      ReturnType<typeof Type.Integer>
    >,
  );

const Overdue = {
  id: Type.Integer(),
  title: Type.String(),
  due_date: Day,
  progress: Type.Integer(),
};

/** docs/api-projects.md `ProjectDashboard`: every severity, status and level appears, zeros included. */
export const ProjectDashboardSchema = Type.Object(
  {
    project: Type.Pick(ProjectSchema, ['id', 'name', 'status', 'priority', 'completion_percentage', 'deadline']),
    counts: CountsOf([
      'assets',
      'vulnerabilities',
      'open_vulnerabilities',
      'threats',
      'active_threats',
      'risks',
      'tasks',
      'corrective_actions',
      'documents',
      'team_members',
    ]),
    vulnerabilities_by_severity: CountsOf(FINDING_SEVERITIES),
    tasks_by_status: CountsOf(PROJECT_TASK_STATUSES),
    risks_by_level: CountsOf(RISK_LEVELS),
    risk_matrix: Type.Array(Type.Array(Type.Integer({ minimum: 0 })), {
      description: 'Risques ouverts : lignes = gravité 1 à 4, colonnes = vraisemblance 1 à 4',
    }),
    overdue: Type.Object({
      tasks: Type.Array(Type.Object(Overdue)),
      corrective_actions: Type.Array(Type.Object({ ...Overdue, plan_id: Type.Integer() })),
    }),
    recent_activity: Type.Array(
      Type.Object({
        id: Type.Integer(),
        action: Type.String(),
        object_type: Type.String(),
        object_id: Nullable(Type.Integer()),
        summary: Type.String(),
        user: Nullable(Type.String()),
        created_at: DateTime,
      }),
    ),
  },
  { title: 'ProjectDashboard' },
);

export type ProjectDashboard = Static<typeof ProjectDashboardSchema>;

export function presentProjectDashboard(p: ProjectRow, d: ProjectDashboardData): ProjectDashboard {
  const risksByLevel = { low: 0, medium: 0, high: 0, critical: 0 };
  const matrix = Array.from({ length: 4 }, () => [0, 0, 0, 0]);
  for (const r of d.openRisks) {
    risksByLevel[riskLevel(r.likelihood * r.impact)] += r.n;
    const row = matrix[r.impact - 1];
    if (row && r.likelihood >= 1 && r.likelihood <= 4) row[r.likelihood - 1]! += r.n;
  }
  return {
    project: {
      id: p.id,
      name: p.name,
      status: p.status,
      priority: p.priority,
      completion_percentage: p.completion,
      deadline: p.deadline,
    },
    counts: d.counts,
    vulnerabilities_by_severity: severityCounts(d.vulnerabilitiesBySeverity),
    tasks_by_status: Object.fromEntries(PROJECT_TASK_STATUSES.map((s) => [s, d.tasksByStatus.get(s) ?? 0])) as Record<
      (typeof PROJECT_TASK_STATUSES)[number],
      number
    >,
    risks_by_level: risksByLevel,
    risk_matrix: matrix,
    overdue: {
      tasks: d.overdueTasks.map((t) => ({ id: t.id, title: t.title, due_date: t.dueDate, progress: t.progress })),
      corrective_actions: d.overdueActions.map((a) => ({
        id: a.id,
        title: a.title,
        due_date: a.dueDate,
        progress: a.progress,
        plan_id: a.planId,
      })),
    },
    recent_activity: d.recentActivity.map((a) => ({
      id: a.id,
      action: a.action,
      object_type: a.objectType,
      object_id: a.objectId,
      summary: a.summary,
      user: a.userName,
      created_at: a.createdAt.toISOString(),
    })),
  };
}
