/** Asset types as the API spells them, and their French labels. */
export const ASSET_TYPES = [
  'server',
  'workstation',
  'network',
  'application',
  'database',
  'cloud',
  'container',
  'iot',
  'other',
] as const;
export type AssetType = (typeof ASSET_TYPES)[number];

export const ASSET_TYPE_LABELS: Record<AssetType, string> = {
  server: 'Serveur',
  workstation: 'Poste de travail',
  network: 'Équipement réseau',
  application: 'Application',
  database: 'Base de données',
  cloud: 'Ressource cloud',
  container: 'Conteneur',
  iot: 'Objet connecté',
  other: 'Autre',
};

export const isAssetType = (value: string): value is AssetType => (ASSET_TYPES as readonly string[]).includes(value);

/**
 * An asset's own fields as the API sends and takes them (the asset list, a project's linked assets, a create or
 * update body); the type and criticality stay strings so that a value this side does not know still shows.
 */
export interface AssetFields {
  name: string;
  asset_type: string;
  hostname: string | null;
  ip_address: string | null;
  operating_system: string | null;
  criticality: string;
  /** « Exposé à Internet » (SSVC's mission and well-being reads it); absent from an answer kept before it existed. */
  internet_exposed?: boolean;
  owner: string | null;
  description: string;
  tags: string[];
}
