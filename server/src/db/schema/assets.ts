import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import type { AssetType } from '../../../../contract/assets.ts';
import type { Criticality } from '../../../../contract/severity.ts';
import type { Scanner } from '../../../../contract/scan-formats.ts';
import { bigId, tenantRef, timestamps, userRef } from './columns.ts';

// The tenant's inventory and the scans run on it (issue 6).

// A scan's scanner is a report format or 'manual' (contract/scan-formats.ts); plain text in the database, no check.
export { SCANNERS, type Scanner } from '../../../../contract/scan-formats.ts';

export const assets = pgTable(
  'assets',
  {
    id: bigId(),
    tenantId: tenantRef(),
    name: text('name').notNull(),
    assetType: text('asset_type').$type<AssetType>().notNull().default('server'),
    hostname: text('hostname'),
    ipAddress: text('ip_address'),
    operatingSystem: text('operating_system'),
    criticality: text('criticality').$type<Criticality>().notNull().default('medium'),
    /** Reachable from the Internet (« exposé à Internet »): SSVC's mission and well-being reads it (docs/ssvc.md). */
    internetExposed: boolean('internet_exposed').notNull().default(false),
    owner: text('owner'),
    description: text('description').notNull().default(''),
    tags: text('tags')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('assets_tenant_name_idx').on(t.tenantId, t.name),
    // Target of the (tenant_id, asset_id) foreign keys: a reference cannot cross tenants.
    uniqueIndex('assets_tenant_id_key').on(t.tenantId, t.id),
    index('assets_tenant_ip_idx').on(t.tenantId, t.ipAddress),
    index('assets_tenant_hostname_idx').on(t.tenantId, t.hostname),
  ],
);

export const SCAN_STATUSES = ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
export type ScanStatus = (typeof SCAN_STATUSES)[number];

export const scans = pgTable(
  'scans',
  {
    id: bigId(),
    tenantId: tenantRef(),
    name: text('name').notNull(),
    scanner: text('scanner').$type<Scanner>().notNull().default('manual'),
    target: text('target').notNull().default(''),
    assetId: bigint('asset_id', { mode: 'number' }).references(() => assets.id, { onDelete: 'set null' }),
    status: text('status').$type<ScanStatus>().notNull().default('PENDING'),
    progress: integer('progress').notNull().default(0),
    /** The job queue's id of the run in progress, so cancel/ can revoke it. */
    jobId: text('job_id'),
    /** The stored scanner report (file name in the data dir, never a client path), its format and size. */
    reportFile: text('report_file'),
    reportFormat: text('report_format'),
    reportSize: bigint('report_size', { mode: 'number' }),
    /** Counts of the last run: findings, created, updated, by severity, assets created. */
    summary: jsonb('summary').$type<Record<string, unknown>>().notNull().default({}),
    error: text('error'),
    createdBy: userRef('created_by'),
    startedAt: timestamp('started_at', { withTimezone: true }),
    completedAt: timestamp('completed_at', { withTimezone: true }),
    ...timestamps(),
  },
  (t) => [
    index('scans_tenant_created_idx').on(t.tenantId, t.createdAt),
    index('scans_tenant_status_idx').on(t.tenantId, t.status),
  ],
);
