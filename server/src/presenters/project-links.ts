import type { ProjectAssetRow, ProjectThreatRow, ProjectVulnerabilityRow } from '../repositories/project-links.ts';
import { Type, type Static } from '../schemas/common.ts';
import { AssetSchema, presentAsset } from './asset.ts';
import { presentThreat, ThreatSchema } from './threat.ts';
import { presentVulnerability, VulnerabilitySchema } from './vulnerability.ts';

const DateTime = Type.String({ format: 'date-time' });

/** The link's own fields, first in every link answer. */
const linkFields = { id: Type.Integer({ description: 'Identifiant du lien' }), project: Type.Integer() };
/** The target's fields but its id (the link's id takes its place). */
const { id: _findingId, ...findingFields } = VulnerabilitySchema.properties;
const { id: _threatId, ...threatFields } = ThreatSchema.properties;

/**
 * ProjectAsset (docs/api-projects.md): the link's id and project, the asset's own fields as the inventory shows
 * them, its open findings, and the link's dates (updated when the asset itself changes later).
 */
export const ProjectAssetSchema = Type.Object(
  {
    ...linkFields,
    asset_id: Type.Integer(),
    ...Type.Omit(AssetSchema, ['id', 'vulnerability_count', 'open_vulnerability_count', 'created_at', 'updated_at'])
      .properties,
    vulnerabilities_count: Type.Integer({ description: 'Vulnérabilités non résolues de l’actif' }),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { title: 'ProjectAsset' },
);
export type ProjectAsset = Static<typeof ProjectAssetSchema>;

export function presentProjectAsset(row: ProjectAssetRow): ProjectAsset {
  // The link's dates replace the asset's; its open findings are the count shown.
  const {
    id,
    vulnerability_count: _all,
    open_vulnerability_count: open,
    created_at: _c,
    updated_at: _u,
    ...asset
  } = presentAsset(row);
  const updatedAt = row.updatedAt > row.linkUpdatedAt ? row.updatedAt : row.linkUpdatedAt;
  return {
    id: row.linkId,
    project: row.projectId,
    asset_id: id,
    ...asset,
    vulnerabilities_count: open,
    created_at: row.linkCreatedAt.toISOString(),
    updated_at: updatedAt.toISOString(),
  };
}

/** ProjectVulnerability: the link's id and project, then the finding exactly as the vulnerability API shows it. */
export const ProjectVulnerabilitySchema = Type.Object(
  { ...linkFields, vulnerability_id: Type.Integer(), ...findingFields },
  { title: 'ProjectVulnerability' },
);
export type ProjectVulnerability = Static<typeof ProjectVulnerabilitySchema>;

export function presentProjectVulnerability(row: ProjectVulnerabilityRow): ProjectVulnerability {
  const { id, ...finding } = presentVulnerability(row);
  return { id: row.linkId, project: row.projectId, vulnerability_id: id, ...finding };
}

/** ProjectThreat: the link's id and project, then the threat exactly as /api/threats/ shows it. */
export const ProjectThreatSchema = Type.Object(
  { ...linkFields, threat_id: Type.Integer(), ...threatFields },
  { title: 'ProjectThreat' },
);
export type ProjectThreat = Static<typeof ProjectThreatSchema>;

export function presentProjectThreat(row: ProjectThreatRow): ProjectThreat {
  const { id, ...threat } = presentThreat(row);
  return { id: row.linkId, project: row.projectId, threat_id: id, ...threat };
}
