import { SEVERITIES } from '../../../contract/severity.ts';
import { THREAT_STATUSES } from '../../../contract/threats.ts';
import { Choice, Nullable, Type, type Static } from '../schemas/common.ts';
import type { ThreatRow } from '../repositories/threats.ts';
import { AssetRefSchema } from './vulnerability.ts';

const DateTime = Type.String({ format: 'date-time' });

/** Threat on the wire (docs/api-vulnerabilities.md § Threats): the reply schema and the presenter agree. */
export const ThreatSchema = Type.Object(
  {
    id: Type.Integer(),
    title: Type.String(),
    description: Type.String(),
    threat_type: Type.String(),
    severity: Choice(SEVERITIES),
    status: Choice(THREAT_STATUSES),
    is_mitigated: Type.Boolean(),
    mitigated_at: Nullable(DateTime),
    source: Type.String(),
    cve_id: Nullable(Type.String()),
    asset_id: Nullable(Type.Integer()),
    asset: Nullable(AssetRefSchema),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { title: 'Threat' },
);
export type Threat = Static<typeof ThreatSchema>;

/** Threat (docs/api-vulnerabilities.md § Threats): exactly these fields leave the server. */
export function presentThreat(t: ThreatRow): Threat {
  return {
    id: t.id,
    title: t.title,
    description: t.description,
    threat_type: t.threatType,
    severity: t.severity,
    status: t.status,
    is_mitigated: t.isMitigated,
    mitigated_at: t.mitigatedAt?.toISOString() ?? null,
    source: t.source,
    cve_id: t.cveId,
    asset_id: t.assetId,
    asset: t.assetId !== null && t.assetName !== null ? { id: t.assetId, name: t.assetName } : null,
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
  };
}

/** A page of threats: this list pages with page and size, and says how many pages there are. */
export const ThreatPageSchema = Type.Object({
  results: Type.Array(ThreatSchema),
  total: Type.Integer({ minimum: 0 }),
  page: Type.Integer({ minimum: 1 }),
  size: Type.Integer({ minimum: 1 }),
  pages: Type.Integer({ minimum: 0 }),
});

/** spec §3 threat summary: every severity and status, zeros included, in their fixed order. */
export const ThreatSummarySchema = Type.Object({
  threats_count: Type.Integer({ minimum: 0 }),
  by_severity: Type.Array(Type.Object({ severity: Choice(SEVERITIES), count: Type.Integer({ minimum: 0 }) })),
  by_status: Type.Array(Type.Object({ status: Choice(THREAT_STATUSES), count: Type.Integer({ minimum: 0 }) })),
  recent_threats: Type.Array(ThreatSchema),
});
export type ThreatSummary = Static<typeof ThreatSummarySchema>;

export function presentThreatSummary(
  bySeverity: ReadonlyMap<string, number>,
  byStatus: ReadonlyMap<string, number>,
  recent: readonly ThreatRow[],
): ThreatSummary {
  return {
    threats_count: [...bySeverity.values()].reduce((a, b) => a + b, 0),
    by_severity: SEVERITIES.map((severity) => ({ severity, count: bySeverity.get(severity) ?? 0 })),
    by_status: THREAT_STATUSES.map((status) => ({ status, count: byStatus.get(status) ?? 0 })),
    recent_threats: recent.map(presentThreat),
  };
}
