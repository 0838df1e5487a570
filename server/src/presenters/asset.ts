import { ASSET_TYPES } from '../../../contract/assets.ts';
import { CRITICALITIES } from '../../../contract/severity.ts';
import { Choice, Nullable, Type, type Static } from '../schemas/common.ts';
import type { AssetRow } from '../repositories/assets.ts';

/** One asset on the wire (docs/api-vulnerabilities.md): the reply schema and the presenter list the same fields. */
export const AssetSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    asset_type: Choice(ASSET_TYPES),
    hostname: Nullable(Type.String()),
    ip_address: Nullable(Type.String()),
    operating_system: Nullable(Type.String()),
    criticality: Choice(CRITICALITIES),
    /** « Exposé à Internet »: SSVC's mission and well-being reads it (docs/ssvc.md). */
    internet_exposed: Type.Boolean(),
    owner: Nullable(Type.String()),
    description: Type.String(),
    tags: Type.Array(Type.String()),
    vulnerability_count: Type.Integer(),
    open_vulnerability_count: Type.Integer(),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Asset' },
);
export type Asset = Static<typeof AssetSchema>;

export function presentAsset(asset: AssetRow): Asset {
  return {
    id: asset.id,
    name: asset.name,
    asset_type: asset.assetType,
    hostname: asset.hostname,
    ip_address: asset.ipAddress,
    operating_system: asset.operatingSystem,
    criticality: asset.criticality,
    internet_exposed: asset.internetExposed,
    owner: asset.owner,
    description: asset.description,
    tags: asset.tags,
    vulnerability_count: asset.vulnerabilityCount,
    open_vulnerability_count: asset.openVulnerabilityCount,
    created_at: asset.createdAt.toISOString(),
    updated_at: asset.updatedAt.toISOString(),
  };
}
