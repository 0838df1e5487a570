import { PROJECT_TASK_STATUSES, SEVERITIES } from '../db/schema.ts';
import type { ProjectAccess } from '../policies/index.ts';
import {
  displayName,
  type ProjectDashboardData,
  type ProjectRow,
  type TeamMemberRow,
} from '../repositories/projects.ts';
import { riskLevel } from '../services/risk-scoring.ts';

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** §3 TeamMember: the user's id, display name, email, team role, ownership and last activity. */
export function presentTeamMember(m: TeamMemberRow) {
  return {
    id: m.userId,
    name: displayName(m),
    email: m.email,
    role: m.role,
    is_owner: m.isOwner,
    last_active: iso(m.lastActiveAt ?? m.lastLogin),
  };
}

export type TeamMember = ReturnType<typeof presentTeamMember>;

/** One project (docs/api-projects.md `Project`) with the caller's access: exactly these fields leave the server. */
export function presentProject(p: ProjectRow, access: Exclude<ProjectAccess, 'none'>) {
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

export type Project = ReturnType<typeof presentProject>;

/** docs/api-projects.md `ProjectDashboard`: every severity, status and level appears, zeros included. */
export function presentProjectDashboard(p: ProjectRow, d: ProjectDashboardData) {
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
    vulnerabilities_by_severity: Object.fromEntries(
      SEVERITIES.map((s) => [s, d.vulnerabilitiesBySeverity.get(s) ?? 0]),
    ) as Record<(typeof SEVERITIES)[number], number>,
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

export type ProjectDashboard = ReturnType<typeof presentProjectDashboard>;
