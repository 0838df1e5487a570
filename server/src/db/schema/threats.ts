import { bigint, boolean, index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import type { Severity } from '../../../../contract/severity.ts';
import { assets } from './assets.ts';
import { bigId, tenantRef, timestamps, titled, userRef } from './columns.ts';

// Threats the tenant watches (issue 6).

export const THREAT_STATUSES = ['ACTIVE', 'INVESTIGATING', 'MITIGATED', 'CLOSED'] as const;
export type ThreatStatus = (typeof THREAT_STATUSES)[number];

export const threats = pgTable(
  'threats',
  {
    id: bigId(),
    tenantId: tenantRef(),
    ...titled(),
    threatType: text('threat_type').notNull().default('other'),
    severity: text('severity').$type<Severity>().notNull().default('medium'),
    status: text('status').$type<ThreatStatus>().notNull().default('ACTIVE'),
    isMitigated: boolean('is_mitigated').notNull().default(false),
    mitigatedAt: timestamp('mitigated_at', { withTimezone: true }),
    mitigatedBy: userRef('mitigated_by'),
    source: text('source').notNull().default(''),
    cveId: text('cve_id'),
    assetId: bigint('asset_id', { mode: 'number' }).references(() => assets.id, { onDelete: 'set null' }),
    ...timestamps(),
  },
  (t) => [
    index('threats_tenant_created_idx').on(t.tenantId, t.createdAt),
    uniqueIndex('threats_tenant_id_key').on(t.tenantId, t.id),
  ],
);
