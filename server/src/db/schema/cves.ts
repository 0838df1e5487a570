import { sql } from 'drizzle-orm';
import {
  boolean,
  customType,
  date,
  doublePrecision,
  index,
  jsonb,
  pgTable,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';
import type { CvssSource, FindingSeverity } from '../../../../contract/severity.ts';
import type { CveReference } from '../../domain/cve-records.ts';

// Vulnerability management (issue 6). The CVE store and the CWE list are public reference data shared by every
// tenant (platform tables, read-only for vigie_app).

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

/** CWE weaknesses (MITRE list): id like 'CWE-79'. */
export const cwes = pgTable('cwes', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
});

export type { CveReference };

/** One row per CVE id: NVD / CVE 5 record, enriched by KEV and EPSS. Upserts keep the newest modified_at. */
export const cves = pgTable(
  'cves',
  {
    cveId: text('cve_id').primaryKey(),
    title: text('title').notNull().default(''),
    description: text('description').notNull().default(''),
    /** NVD vulnStatus or CVE 5 state (PUBLISHED, REJECTED, Modified, Analyzed…). */
    status: text('status'),
    publishedAt: timestamp('published_at', { withTimezone: true }),
    modifiedAt: timestamp('modified_at', { withTimezone: true }),
    cvss3Score: doublePrecision('cvss3_score'),
    cvss3Vector: text('cvss3_vector'),
    cvss3Severity: text('cvss3_severity'),
    cvss4Score: doublePrecision('cvss4_score'),
    cvss4Vector: text('cvss4_vector'),
    cvss4Severity: text('cvss4_severity'),
    cvss2Score: doublePrecision('cvss2_score'),
    cvss2Vector: text('cvss2_vector'),
    /** Best available severity (v4, else v3.x, else v2), lower case; 'unrated' when unscored (migration 0030). */
    severity: text('severity').$type<FindingSeverity>().notNull().default('unrated'),
    /** Who scored that best metric: NVD itself, the CNA, or CISA's ADP (Vulnrichment); null when unscored. */
    cvssSource: text('cvss_source').$type<CvssSource>(),
    cweIds: text('cwe_ids')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    references: jsonb('references').$type<CveReference[]>().notNull().default([]),
    kev: boolean('kev').notNull().default(false),
    kevDateAdded: date('kev_date_added'),
    kevDueDate: date('kev_due_date'),
    kevRequiredAction: text('kev_required_action'),
    kevVendor: text('kev_vendor'),
    kevProduct: text('kev_product'),
    kevName: text('kev_name'),
    kevKnownRansomware: text('kev_known_ransomware'),
    epssScore: doublePrecision('epss_score'),
    epssPercentile: doublePrecision('epss_percentile'),
    epssDate: date('epss_date'),
    /** Where the record body came from: nvd, cve5, or kev (a KEV entry seen before its CVE record). */
    source: text('source').notNull().default('nvd'),
    /** Full-text document (id, title, description, CWE ids and names), maintained by the importers. */
    searchVector: tsvector('search_vector'),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('cves_search_idx').using('gin', t.searchVector),
    index('cves_published_idx').on(t.publishedAt),
    index('cves_kev_idx')
      .on(t.kev)
      .where(sql`${t.kev}`),
  ],
);
