import { charCount } from '../../../contract/text.ts';
import { ASSET_TYPE_LABELS as CONTRACT_ASSET_TYPE_LABELS } from '../../../contract/assets.ts';
import { CRITICALITY_LABELS as CONTRACT_CRITICALITY_LABELS } from '../../../contract/severity.ts';
import type { AssetInput } from './assets-api.ts';

/** The contract's labels, readable by any key (an unknown one is shown as is). */
export const ASSET_TYPE_LABELS: Record<string, string> = CONTRACT_ASSET_TYPE_LABELS;
export const CRITICALITY_LABELS: Record<string, string> = CONTRACT_CRITICALITY_LABELS;

export const NAME_MAX = 200;
export const MAX_TAGS = 50;
export const MAX_TAG_LENGTH = 100;

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** An IPv4 address (dotted decimal) or an IPv6 address. */
export function isIpAddress(value: string): boolean {
  if (IPV4.test(value)) return true;
  if (!value.includes(':') || !/^[0-9a-f:.]+$/i.test(value)) return false;
  try {
    return new URL(`http://[${value}]/`).hostname.length > 2;
  } catch {
    return false;
  }
}

/** 'web, dmz ,,prod' → ['web', 'dmz', 'prod'] (trimmed, no empties, no duplicates). */
export function parseTags(text: string): string[] {
  const tags = text
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  return tags.filter((t, i) => tags.indexOf(t) === i);
}

export interface AssetDraft {
  name: string;
  asset_type: string;
  hostname: string;
  ip_address: string;
  operating_system: string;
  criticality: string;
  internet_exposed: boolean;
  owner: string;
  description: string;
  tags: string;
}

export type AssetFieldErrors = Partial<Record<keyof AssetDraft, string>>;

/** « Exposé à Internet » as a fact: yes or no (an answer without the field says nothing). */
export function exposureText(exposed: boolean | undefined): string {
  return exposed === undefined ? 'Non renseigné' : exposed ? 'Oui' : 'Non';
}

/** The server's rules (server/src/routes/api/assets), checked before sending: a name, an IP address, tags. */
export function validateAsset(draft: AssetDraft): AssetFieldErrors {
  const errors: AssetFieldErrors = {};
  const name = draft.name.trim();
  if (name === '') errors.name = 'Le nom de l’actif est requis.';
  else if (charCount(name) > NAME_MAX) errors.name = `Le nom ne doit pas dépasser ${NAME_MAX} caractères.`;
  const ip = draft.ip_address.trim();
  if (ip !== '' && !isIpAddress(ip)) errors.ip_address = 'Adresse IP invalide (IPv4 ou IPv6 attendue).';
  const tags = parseTags(draft.tags);
  if (tags.length > MAX_TAGS || tags.some((t) => charCount(t) > MAX_TAG_LENGTH))
    errors.tags = `Au plus ${MAX_TAGS} étiquettes de ${MAX_TAG_LENGTH} caractères chacune.`;
  // Own keys only: `constructor` is not an asset type.
  if (!Object.hasOwn(ASSET_TYPE_LABELS, draft.asset_type)) errors.asset_type = 'Type d’actif inconnu.';
  if (!Object.hasOwn(CRITICALITY_LABELS, draft.criticality)) errors.criticality = 'Criticité inconnue.';
  return errors;
}

export function toInput(draft: AssetDraft): AssetInput {
  const orNull = (v: string) => (v.trim() === '' ? null : v.trim());
  return {
    name: draft.name.trim(),
    asset_type: draft.asset_type,
    hostname: orNull(draft.hostname),
    ip_address: orNull(draft.ip_address),
    operating_system: orNull(draft.operating_system),
    criticality: draft.criticality,
    internet_exposed: draft.internet_exposed,
    owner: orNull(draft.owner),
    description: draft.description.trim(),
    tags: parseTags(draft.tags),
  };
}
