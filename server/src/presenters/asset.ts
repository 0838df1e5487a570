import type { AssetRow } from '../repositories/assets.ts';

/** One asset (docs/api-vulnerabilities.md): exactly these fields leave the server. */
export function presentAsset(asset: AssetRow) {
  return {
    id: asset.id,
    name: asset.name,
    asset_type: asset.assetType,
    hostname: asset.hostname,
    ip_address: asset.ipAddress,
    operating_system: asset.operatingSystem,
    criticality: asset.criticality,
    owner: asset.owner,
    description: asset.description,
    tags: asset.tags,
    vulnerability_count: asset.vulnerabilityCount,
    open_vulnerability_count: asset.openVulnerabilityCount,
    created_at: asset.createdAt.toISOString(),
    updated_at: asset.updatedAt.toISOString(),
  };
}

export type Asset = ReturnType<typeof presentAsset>;
