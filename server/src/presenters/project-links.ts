import type { ProjectAssetRow, ProjectThreatRow, ProjectVulnerabilityRow } from '../repositories/project-links.ts';
import { presentAsset } from './asset.ts';
import { presentThreat } from './threat.ts';
import { presentVulnerability } from './vulnerability.ts';

/**
 * ProjectAsset (docs/api-projects.md): the link's id and project, the asset's own fields as the inventory shows
 * them, its open findings, and the link's dates (updated when the asset itself changes later).
 */
export function presentProjectAsset(row: ProjectAssetRow) {
  const asset = presentAsset(row);
  const updatedAt = row.updatedAt > row.linkUpdatedAt ? row.updatedAt : row.linkUpdatedAt;
  return {
    id: row.linkId,
    project: row.projectId,
    asset_id: asset.id,
    name: asset.name,
    asset_type: asset.asset_type,
    hostname: asset.hostname,
    ip_address: asset.ip_address,
    operating_system: asset.operating_system,
    criticality: asset.criticality,
    owner: asset.owner,
    description: asset.description,
    tags: asset.tags,
    vulnerabilities_count: asset.open_vulnerability_count,
    created_at: row.linkCreatedAt.toISOString(),
    updated_at: updatedAt.toISOString(),
  };
}

/** ProjectVulnerability: the link's id and project, then the finding exactly as the vulnerability API shows it. */
export function presentProjectVulnerability(row: ProjectVulnerabilityRow) {
  const { id, ...finding } = presentVulnerability(row);
  return { id: row.linkId, project: row.projectId, vulnerability_id: id, ...finding };
}

/** ProjectThreat: the link's id and project, then the threat exactly as /api/threats/ shows it. */
export function presentProjectThreat(row: ProjectThreatRow) {
  const { id, ...threat } = presentThreat(row);
  return { id: row.linkId, project: row.projectId, threat_id: id, ...threat };
}
