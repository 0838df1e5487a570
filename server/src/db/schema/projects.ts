import { boolean, date, index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import type { ProjectPriority, ProjectStatus } from '../../domain/project-vocabulary.ts';
import { bigId, tenantRef, timestamps, userRef } from './columns.ts';

// The vocabulary is pure and lives in domain/ (the scoring rules read it too); re-exported with its tables.
export {
  PROJECT_PRIORITIES,
  PROJECT_STATUSES,
  type ProjectPriority,
  type ProjectStatus,
  TEAM_ROLES,
  type TeamRole,
} from '../../domain/project-vocabulary.ts';

// Projects (issue 7): a client engagement gathering assets, risks, threats, findings, remediation and documents.
// Every row carries its tenant; project-level visibility (team roles) is enforced by the policies and repositories.

export const projects = pgTable(
  'projects',
  {
    id: bigId(),
    tenantId: tenantRef(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    status: text('status').$type<ProjectStatus>().notNull().default('PLANNED'),
    priority: text('priority').$type<ProjectPriority>().notNull().default('MEDIUM'),
    startDate: date('start_date'),
    deadline: date('deadline'),
    ownerId: userRef('owner_id'),
    isActive: boolean('is_active').notNull().default(true),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('projects_tenant_id_key').on(t.tenantId, t.id),
    index('projects_tenant_created_idx').on(t.tenantId, t.createdAt),
    index('projects_tenant_status_idx').on(t.tenantId, t.status),
  ],
);
