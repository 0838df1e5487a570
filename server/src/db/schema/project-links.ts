import { bigint, index, pgTable, primaryKey, text, timestamp, unique } from 'drizzle-orm/pg-core';
import type { TeamRole } from '../../domain/project-vocabulary.ts';
import { assets } from './assets.ts';
import { bigId, cascadeTo, createdAt, tenantRef, timestamps, userOwner, userRef } from './columns.ts';
import { inProject } from './project-keys.ts';
import { threats } from './threats.ts';
import { vulnerabilities } from './vulnerabilities.ts';

// A project's team, its links to the tenant's assets, findings and threats (nothing is copied), and its activity.

/** The project's team. The owner (projects.owner_id) is also a member, with role ADMIN. */
export const projectMembers = pgTable(
  'project_members',
  {
    tenantId: tenantRef(),
    projectId: bigint('project_id', { mode: 'number' }).notNull(),
    userId: userOwner(),
    role: text('role').$type<TeamRole>().notNull().default('MEMBER'),
    lastActiveAt: timestamp('last_active_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    inProject(t, 'project_members_project_fk'),
    primaryKey({ columns: [t.tenantId, t.projectId, t.userId] }),
    index('project_members_tenant_user_idx').on(t.tenantId, t.userId),
  ],
);

/** A project's link to an asset of the tenant's inventory (assets are not copied). */
export const projectAssets = pgTable(
  'project_assets',
  {
    id: bigId(),
    tenantId: tenantRef(),
    projectId: bigint('project_id', { mode: 'number' }).notNull(),
    assetId: bigint('asset_id', { mode: 'number' }).notNull(),
    ...timestamps(),
  },
  (t) => [
    cascadeTo('project_assets_asset_fk', [t.tenantId, t.assetId], assets),
    inProject(t, 'project_assets_project_fk'),
    unique('project_assets_project_asset').on(t.tenantId, t.projectId, t.assetId),
  ],
);

/** A project's link to a finding of the tenant (which itself links to the CVE store). */
export const projectVulnerabilities = pgTable(
  'project_vulnerabilities',
  {
    id: bigId(),
    tenantId: tenantRef(),
    projectId: bigint('project_id', { mode: 'number' }).notNull(),
    vulnerabilityId: bigint('vulnerability_id', { mode: 'number' }).notNull(),
    ...timestamps(),
  },
  (t) => [
    cascadeTo('project_vulnerabilities_vulnerability_fk', [t.tenantId, t.vulnerabilityId], vulnerabilities),
    inProject(t, 'project_vulnerabilities_project_fk'),
    unique('project_vulnerabilities_project_vuln').on(t.tenantId, t.projectId, t.vulnerabilityId),
  ],
);

/** A project's link to a threat of the tenant. */
export const projectThreats = pgTable(
  'project_threats',
  {
    id: bigId(),
    tenantId: tenantRef(),
    projectId: bigint('project_id', { mode: 'number' }).notNull(),
    threatId: bigint('threat_id', { mode: 'number' }).notNull(),
    ...timestamps(),
  },
  (t) => [
    cascadeTo('project_threats_threat_fk', [t.tenantId, t.threatId], threats),
    inProject(t, 'project_threats_project_fk'),
    unique('project_threats_project_threat').on(t.tenantId, t.projectId, t.threatId),
  ],
);

/** What happened in a project, newest first on its dashboard (written by the project services). */
export const projectActivity = pgTable(
  'project_activity',
  {
    id: bigId(),
    tenantId: tenantRef(),
    projectId: bigint('project_id', { mode: 'number' }).notNull(),
    userId: userRef('user_id'),
    /** created, updated, deleted, progress, resolved, mitigated, member_added, member_removed, uploaded… */
    action: text('action').notNull(),
    objectType: text('object_type').notNull(),
    objectId: bigint('object_id', { mode: 'number' }),
    summary: text('summary').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    inProject(t, 'project_activity_project_fk'),
    index('project_activity_tenant_project_idx').on(t.tenantId, t.projectId, t.createdAt),
  ],
);
