import { sql, type SQL } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  date,
  doublePrecision,
  index,
  integer,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  unique,
  uniqueIndex,
  uuid,
  type AnyPgColumn,
} from 'drizzle-orm/pg-core';
import {
  FINDING_SEVERITIES,
  SEVERITY_SOURCES,
  type FindingSeverity,
  type SeveritySource,
} from '../../../../contract/severity.ts';
import { FINDING_STATES, RESOLVED_STATES, type FindingState } from '../../../../contract/finding-states.ts';
import { assets, scans } from './assets.ts';
import { bigId, cascadeTo, createdAt, tenantRef, timestamps, titled, userRef } from './columns.ts';
import { tenants } from './identity.ts';

export { FINDING_STATES, type FindingState };

// Findings and the counters kept beside them (issue 6): tenant-owned.

/**
 * Findings: one row per (tenant, asset, finding key). finding_key is the CVE id when there is one, else the
 * scanner's own stable key (an OpenVAS NVT OID, an Nmap port), so a re-imported report updates instead of
 * duplicating.
 */
/** A severity as a number to sort by (critical 5 … info 1, unrated 0: apart, after Info): the ordering `severity`. */
export const severityRank = (severity: AnyPgColumn | SQL) =>
  sql`(case ${severity} when 'critical' then 5 when 'high' then 4 when 'medium' then 3 when 'low' then 2 when 'info' then 1 else 0 end)`;

const inList = (values: readonly string[]) => values.map((v) => `'${v}'`).join(', ');

/**
 * The leading columns of the findings list's cell indexes (migration 0021, the SSVC decision since 0029): a tenant's
 * (severity, resolved, KEV, SSVC decision).
 */
const cell = (t: {
  tenantId: AnyPgColumn;
  severity: AnyPgColumn;
  isResolved: AnyPgColumn;
  kev: AnyPgColumn;
  ssvcDecision: AnyPgColumn;
}) => [t.tenantId, t.severity, t.isResolved, t.kev, t.ssvcDecision] as const;

export const vulnerabilities = pgTable(
  'vulnerabilities',
  {
    id: bigId(),
    tenantId: tenantRef(),
    assetId: bigint('asset_id', { mode: 'number' }).references(() => assets.id, { onDelete: 'cascade' }),
    scanId: bigint('scan_id', { mode: 'number' }).references(() => scans.id, { onDelete: 'set null' }),
    cveId: text('cve_id'),
    findingKey: text('finding_key').notNull(),
    ...titled(),
    severity: text('severity').$type<FindingSeverity>().notNull().default('medium'),
    /**
     * Who gave the severity above (migration 0030, docs/severity.md): the scanner, the CVE store's CVSS (NVD, CNA,
     * CISA ADP) or an analyst (typed in by hand, or an override with its reason).
     */
    severitySource: text('severity_source').$type<SeveritySource>().notNull().default('scanner'),
    /** The analyst's reason for an override (null otherwise). */
    severityReason: text('severity_reason'),
    /**
     * While an analyst's override stands: what the scanner or the CVE store says (a re-scan updates it), restored when
     * the override is withdrawn. Null otherwise.
     */
    ratedSeverity: text('rated_severity').$type<FindingSeverity>(),
    ratedSource: text('rated_source').$type<SeveritySource>(),
    cvssScore: doublePrecision('cvss_score'),
    cvssVector: text('cvss_vector'),
    /** Copied from the CVE store at write time so list filters and the summary need no join. */
    kev: boolean('kev').notNull().default(false),
    cweIds: text('cwe_ids')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    port: integer('port'),
    protocol: text('protocol'),
    service: text('service'),
    packageName: text('package_name'),
    installedVersion: text('installed_version'),
    fixedVersion: text('fixed_version'),
    solution: text('solution').notNull().default(''),
    source: text('source').notNull().default('manual'),
    isResolved: boolean('is_resolved').notNull().default(false),
    resolvedAt: timestamp('resolved_at', { withTimezone: true }),
    resolvedBy: userRef('resolved_by'),
    /** The lifecycle (contract/finding-states.ts); is_resolved follows it (checked below). */
    state: text('state').$type<FindingState>().notNull().default('new'),
    stateChangedAt: timestamp('state_changed_at', { withTimezone: true }),
    /** Why it is a false positive, accepted or out of scope: the justification given with the move. */
    stateReason: text('state_reason'),
    /** A risk acceptance: who approved it (a manager or an administrator) and the day it lapses (reopened then). */
    acceptedBy: userRef('accepted_by'),
    acceptedUntil: date('accepted_until'),
    assigneeId: userRef('assignee_id'),
    dueDate: date('due_date'),
    /**
     * CISA's SSVC decision as a rank (domain/ssvc.ts ssvcRank: 1 track … 4 act), 0 (none) exactly when resolved
     * (checked below). Kept by the database from one SQL expression (migration 0029, docs/ssvc.md): on every write of
     * the finding's own inputs, and when its asset, its tenant's EPSS threshold or the CVE store changes.
     */
    ssvcDecision: smallint('ssvc_decision').notNull().default(0),
    firstSeen: timestamp('first_seen', { withTimezone: true }).notNull().defaultNow(),
    lastSeen: timestamp('last_seen', { withTimezone: true }).notNull().defaultNow(),
    ...timestamps(),
    // A 64-bit hash of the searchable text, the key into vulnerability_texts (never sent out).
    textHash: bigint('text_hash', { mode: 'bigint' }).generatedAlwaysAs(
      sql`hashtextextended(coalesce(cve_id, '') || ' ' || title || ' ' || description, 0)`,
    ),
  },
  (t) => [
    unique('vulnerabilities_finding_key').on(t.tenantId, t.assetId, t.findingKey).nullsNotDistinct(),
    // Unique: also the target of the (tenant_id, vulnerability_id) foreign keys.
    uniqueIndex('vulnerabilities_tenant_id_idx').on(t.tenantId, t.id),
    index('vulnerabilities_tenant_severity_idx').on(t.tenantId, t.isResolved, t.severity),
    // The id tiebreak makes the default ordering (newest first) and keyset paging an index walk.
    index('vulnerabilities_tenant_created_idx').on(t.tenantId, t.createdAt, t.id),
    index('vulnerabilities_tenant_asset_idx').on(t.tenantId, t.assetId),
    index('vulnerabilities_tenant_scan_idx').on(t.tenantId, t.scanId),
    // Every documented ordering (docs/api-vulnerabilities.md) is an index walk in both directions, the id breaking
    // ties, inside each cell of (severity, is_resolved, kev, ssvc_decision): a page reads about cells × (offset + 25)
    // index entries whatever the filters on those columns, where a walk of the whole tenant would skip the rows they
    // exclude (a critical finding's score is high: ordered by score, critical+high ones come last; an Act finding is
    // rare). The repository merges the cells' walks (issue 19, docs/SCALING.md). Nullable keys sort their nulls last
    // both ways: one index per direction for them. The severity and SSVC orderings are the id order inside a cell.
    index('vulnerabilities_cell_id_idx').on(...cell(t), t.id),
    index('vulnerabilities_cell_created_idx').on(...cell(t), t.createdAt, t.id),
    index('vulnerabilities_cell_updated_idx').on(...cell(t), t.updatedAt, t.id),
    index('vulnerabilities_cell_last_seen_idx').on(...cell(t), t.lastSeen, t.id),
    index('vulnerabilities_cell_title_idx').on(...cell(t), t.title, t.id),
    index('vulnerabilities_cell_cvss_idx').on(...cell(t), t.cvssScore.asc().nullsLast(), t.id),
    index('vulnerabilities_cell_cvss_desc_idx').on(...cell(t), t.cvssScore.desc().nullsLast(), t.id.desc().nullsLast()),
    index('vulnerabilities_cell_cve_idx').on(...cell(t), t.cveId.asc().nullsLast(), t.id),
    index('vulnerabilities_cell_cve_desc_idx').on(...cell(t), t.cveId.desc().nullsLast(), t.id.desc().nullsLast()),
    // The cve= filter's index.
    index('vulnerabilities_tenant_cve_idx').on(t.tenantId, t.cveId.asc().nullsLast(), t.id),
    // The text filter counts its matches in this index alone (no heap visit): see vulnerability_texts.
    index('vulnerabilities_tenant_text_idx').on(t.tenantId, t.textHash, t.isResolved, t.severity, t.kev),
    index('vulnerabilities_tenant_assignee_idx').on(t.tenantId, t.assigneeId),
    // The SLA report reads open findings by due date, and resolved ones by resolution date (migration 0027).
    index('vulnerabilities_open_due_idx')
      .on(t.tenantId, t.dueDate)
      .where(sql`not ${t.isResolved}`),
    index('vulnerabilities_resolved_at_idx')
      .on(t.tenantId, t.resolvedAt)
      .where(sql`${t.isResolved}`),
    // The daily reopening of lapsed acceptances finds them without reading the open findings.
    index('vulnerabilities_accepted_until_idx')
      .on(t.acceptedUntil)
      .where(sql`${t.state} = 'accepted'`),
    check(
      'vulnerabilities_state_resolved',
      sql.raw(`is_resolved = (state in (${RESOLVED_STATES.map((s) => `'${s}'`).join(', ')}))`),
    ),
    check('vulnerabilities_severity_known', sql.raw(`severity in (${inList(FINDING_SEVERITIES)})`)),
    check('vulnerabilities_severity_source_known', sql.raw(`severity_source in (${inList(SEVERITY_SOURCES)})`)),
    check(
      'vulnerabilities_rated_override',
      sql`(${t.ratedSeverity} is null) = (${t.ratedSource} is null) and (${t.ratedSource} is null or ${t.severitySource} = 'analyst')`,
    ),
    check('vulnerabilities_state_known', sql.raw(`state in (${FINDING_STATES.map((s) => `'${s}'`).join(', ')})`)),
    check('vulnerabilities_acceptance', sql`(${t.state} = 'accepted') = (${t.acceptedUntil} is not null)`),
    check(
      'vulnerabilities_ssvc_decision',
      sql`case when ${t.isResolved} then ${t.ssvcDecision} = 0 else ${t.ssvcDecision} between 1 and 4 end`,
    ),
  ],
);

/**
 * A finding's history (issue 21): each state move, assignment, due date and comment, who and when. Append-only for
 * the application; goes with its finding.
 */
export const findingEvents = pgTable(
  'finding_events',
  {
    id: bigId(),
    tenantId: tenantRef(),
    vulnerabilityId: bigint('vulnerability_id', { mode: 'number' }).notNull(),
    /** null: the platform itself (a re-scan, a lapsed acceptance). */
    userId: userRef('user_id'),
    kind: text('kind').$type<FindingEventKind>().notNull(),
    /** The state, assignee id or due date before and after (text), for kinds that change one. */
    fromValue: text('from_value'),
    toValue: text('to_value'),
    comment: text('comment').notNull().default(''),
    /** The scan whose reconciliation made the move (issue 21's scan page lists them); null otherwise. */
    scanId: bigint('scan_id', { mode: 'number' }).references(() => scans.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (t) => [
    cascadeTo('finding_events_vulnerability_fk', [t.tenantId, t.vulnerabilityId], vulnerabilities),
    index('finding_events_scan_idx')
      .on(t.tenantId, t.scanId)
      .where(sql`${t.scanId} is not null`),
    index('finding_events_finding_idx').on(t.tenantId, t.vulnerabilityId, t.id),
  ],
);

/**
 * A tenant's triage settings (issue 21): the SLA in days per severity (null: no deadline), from which a new open
 * finding's due date is set (migration 0027's trigger; a KEV finding takes CISA's due date when earlier), and the
 * EPSS probability from which SSVC takes a public exploit as likely (migration 0029; domain/ssvc.ts
 * DEFAULT_EPSS_THRESHOLD while the tenant set none).
 */
export const triageSettings = pgTable(
  'triage_settings',
  {
    tenantId: uuid('tenant_id')
      .primaryKey()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    slaCriticalDays: integer('sla_critical_days').default(7),
    slaHighDays: integer('sla_high_days').default(30),
    slaMediumDays: integer('sla_medium_days').default(90),
    slaLowDays: integer('sla_low_days').default(180),
    slaInfoDays: integer('sla_info_days'),
    /** An unrated finding's deadline to be rated and treated (migration 0030); none by default, KEV's date applies. */
    slaUnratedDays: integer('sla_unrated_days'),
    epssThreshold: doublePrecision('epss_threshold').notNull().default(0.1),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    updatedBy: userRef('updated_by'),
  },
  (t) => [check('triage_settings_epss_threshold', sql`${t.epssThreshold} > 0 and ${t.epssThreshold} <= 1`)],
);

export const FINDING_EVENT_KINDS = ['state', 'assignee', 'due_date', 'comment', 'severity'] as const;
export type FindingEventKind = (typeof FINDING_EVENT_KINDS)[number];

/**
 * The distinct texts of each tenant's findings (CVE id, title, description; lower-cased), keyed by the findings'
 * text_hash and kept by a statement-level trigger (migration 0011). A text filter matches these few rows with the trigram index,
 * then finds the findings by hash: a million findings share far fewer texts. Rows whose findings are gone stay
 * (harmless: findings are always found by hash). Read only through vulnerability_text_hashes().
 */
export const vulnerabilityTexts = pgTable(
  'vulnerability_texts',
  {
    tenantId: tenantRef(),
    textHash: bigint('text_hash', { mode: 'bigint' }).notNull(),
    body: text('body').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.textHash] }),
    index('vulnerability_texts_body_trgm_idx').using('gin', sql`${t.body} gin_trgm_ops`),
  ],
);

/**
 * Per-tenant finding counters, maintained by statement-level triggers on vulnerabilities (migration 0008), so the
 * summary and the list's count do not count a million rows. asset_id 0 stands for "no asset".
 */
export const vulnerabilityCounts = pgTable(
  'vulnerability_counts',
  {
    tenantId: uuid('tenant_id').notNull(),
    assetId: bigint('asset_id', { mode: 'number' }).notNull().default(0),
    severity: text('severity').$type<FindingSeverity>().notNull(),
    isResolved: boolean('is_resolved').notNull(),
    kev: boolean('kev').notNull(),
    n: bigint('n', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.assetId, t.severity, t.isResolved, t.kev] })],
);

/**
 * The tenant's totals: vulnerability_counts without the asset dimension and with the SSVC decision's (0: none, a
 * resolved finding's), same maintenance (migrations 0010 and 0029). The list's count and the summaries read these few
 * rows (at most 40 per tenant: a resolved finding has no decision, three decisions go with KEV and three without) instead of summing a row per
 * asset.
 */
export const vulnerabilityTotals = pgTable(
  'vulnerability_totals',
  {
    tenantId: uuid('tenant_id').notNull(),
    severity: text('severity').$type<FindingSeverity>().notNull(),
    isResolved: boolean('is_resolved').notNull(),
    kev: boolean('kev').notNull(),
    ssvcDecision: smallint('ssvc_decision').notNull().default(0),
    n: bigint('n', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.severity, t.isResolved, t.kev, t.ssvcDecision] })],
);

/** New findings per UTC day of created_at (trends), same maintenance. */
export const vulnerabilityDailyCounts = pgTable(
  'vulnerability_daily_counts',
  {
    tenantId: uuid('tenant_id').notNull(),
    day: date('day').notNull(),
    severity: text('severity').$type<FindingSeverity>().notNull(),
    isResolved: boolean('is_resolved').notNull(),
    kev: boolean('kev').notNull(),
    n: bigint('n', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.day, t.severity, t.isResolved, t.kev] })],
);

/** Findings per CWE (a finding with several CWEs counts once for each), same maintenance. */
export const vulnerabilityCweCounts = pgTable(
  'vulnerability_cwe_counts',
  {
    tenantId: uuid('tenant_id').notNull(),
    cweId: text('cwe_id').notNull(),
    severity: text('severity').$type<FindingSeverity>().notNull(),
    isResolved: boolean('is_resolved').notNull(),
    kev: boolean('kev').notNull(),
    n: bigint('n', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.cweId, t.severity, t.isResolved, t.kev] })],
);
