import { SEVERITIES } from '../../../contract/severity.ts';
import { Choice, Nullable, Type, type Static } from '../schemas/common.ts';
import { AssetRefSchema, SeverityCountsSchema } from './vulnerability.ts';

// The dashboards' figures are shaped by repositories/dashboard.ts; these are their wire schemas.

const DateTime = Type.String({ format: 'date-time' });
const Count = Type.Integer({ minimum: 0 });

/** spec §3 vulnerability dashboard summary (GET /api/vulnerabilities/summary/). */
export const VulnerabilitySummarySchema = Type.Object(
  {
    total_vulnerabilities: Count,
    severity_distribution: SeverityCountsSchema,
    recently_added: Type.Array(
      Type.Object({
        id: Type.Integer(),
        cve_id: Nullable(Type.String()),
        title: Type.String(),
        severity: Choice(SEVERITIES),
        asset: Nullable(AssetRefSchema),
        created_at: DateTime,
      }),
    ),
    top_affected_assets: Type.Array(
      Type.Object({ id: Type.Integer(), name: Type.String(), count: Count, critical: Count }),
    ),
    top_cwe_categories: Type.Array(Type.Object({ cwe_id: Type.String(), name: Type.String(), count: Count })),
    vulnerability_trends: Type.Array(Type.Object({ date: Type.String({ format: 'date' }), count: Count })),
    kev_count: Count,
    open_count: Count,
    resolved_count: Count,
    generated_at: DateTime,
  },
  { title: 'VulnerabilitySummary' },
);
export type VulnerabilitySummary = Static<typeof VulnerabilitySummarySchema>;

/** The home page's figures (GET /api/dashboard/summary/). */
export const HomeSummarySchema = Type.Object(
  {
    vulnerabilities: Type.Object({
      total: Count,
      open: Count,
      critical: Count,
      high: Count,
      kev: Count,
      resolved: Count,
    }),
    assets: Type.Object({ total: Count, critical: Count }),
    threats: Type.Object({ total: Count, active: Count }),
    scans: Type.Object({ total: Count, running: Count, last_completed_at: Nullable(DateTime) }),
    tasks: Type.Object({ running: Count, failed_24h: Count }),
    last_cve_update: Nullable(DateTime),
    generated_at: DateTime,
  },
  { title: 'HomeSummary' },
);
export type HomeSummary = Static<typeof HomeSummarySchema>;
