import { ASSET_TYPES, type AssetType } from '../../../contract/assets.ts';
import {
  CRITICALITIES,
  FINDING_SEVERITIES,
  SEVERITIES,
  SEVERITY_SOURCES,
  type Criticality,
  type FindingSeverity,
  type Severity,
  type SeveritySource,
} from '../../../contract/severity.ts';
import { tenants, users } from './schema/identity.ts';
import {
  emailChanges,
  mailOutbox,
  memberships,
  passwordResetTokens,
  recoveryCodes,
  refreshTokens,
} from './schema/access.ts';
import { attemptCounters, loginLockouts, serverProcesses, signingKeys } from './schema/cluster.ts';
import { adminConfig, securityPolicies, serverLogs, systemSettings } from './schema/platform.ts';
import { auditEvents, backups, idempotencyKeys } from './schema/audit.ts';
import { cves, cwes } from './schema/cves.ts';
import { assets, scans } from './schema/assets.ts';
import {
  vulnerabilities,
  vulnerabilityCounts,
  vulnerabilityCweCounts,
  vulnerabilityDailyCounts,
  vulnerabilityTexts,
  findingEvents,
  triageSettings,
  vulnerabilityTotals,
} from './schema/vulnerabilities.ts';
import { threats } from './schema/threats.ts';
import { taskRuns } from './schema/task-runs.ts';
import { projects } from './schema/projects.ts';
import {
  projectActivity,
  projectAssets,
  projectMembers,
  projectThreats,
  projectVulnerabilities,
} from './schema/project-links.ts';
import { correctiveActions, projectTasks, remediationPlans, risks } from './schema/project-work.ts';
import { projectDocuments } from './schema/documents.ts';
import { notifications } from './schema/notifications.ts';
import { blogImages, blogPosts } from './schema/blog.ts';
import { displayPairings, displays } from './schema/displays.ts';

// The database schema, one module per area under schema/; this barrel is what drizzle-kit reads
// (server/drizzle.config.ts) and what the server imports, so every table and word is exported from here.

// The vocabulary shared with the client lives in contract/; re-exported for the server's existing imports.
export {
  ASSET_TYPES,
  CRITICALITIES,
  FINDING_SEVERITIES,
  SEVERITIES,
  SEVERITY_SOURCES,
  type AssetType,
  type Criticality,
  type FindingSeverity,
  type Severity,
  type SeveritySource,
};

export * from './schema/identity.ts';
export * from './schema/access.ts';
export * from './schema/platform.ts';
export * from './schema/cluster.ts';
export * from './schema/audit.ts';
export * from './schema/cves.ts';
export * from './schema/assets.ts';
export * from './schema/vulnerabilities.ts';
export * from './schema/threats.ts';
export * from './schema/task-runs.ts';
export * from './schema/projects.ts';
export * from './schema/project-links.ts';
export * from './schema/project-work.ts';
export * from './schema/documents.ts';
export * from './schema/notifications.ts';
export * from './schema/blog.ts';
export * from './schema/displays.ts';

export const schema = {
  tenants,
  users,
  memberships,
  refreshTokens,
  passwordResetTokens,
  recoveryCodes,
  emailChanges,
  mailOutbox,
  systemSettings,
  adminConfig,
  serverLogs,
  backups,
  auditEvents,
  securityPolicies,
  serverProcesses,
  signingKeys,
  attemptCounters,
  loginLockouts,
  idempotencyKeys,
  cwes,
  cves,
  assets,
  scans,
  vulnerabilities,
  vulnerabilityCounts,
  vulnerabilityTotals,
  vulnerabilityDailyCounts,
  vulnerabilityCweCounts,
  vulnerabilityTexts,
  findingEvents,
  triageSettings,
  threats,
  taskRuns,
  projects,
  projectMembers,
  projectAssets,
  projectVulnerabilities,
  projectThreats,
  risks,
  remediationPlans,
  correctiveActions,
  projectTasks,
  projectDocuments,
  projectActivity,
  notifications,
  blogPosts,
  blogImages,
  displays,
  displayPairings,
};
