import type { ThreatRow } from '../repositories/threats.ts';

/** Threat (docs/api-vulnerabilities.md § Threats): exactly these fields leave the server. */
export function presentThreat(t: ThreatRow) {
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

export type Threat = ReturnType<typeof presentThreat>;
