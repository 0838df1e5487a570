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
