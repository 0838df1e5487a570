/**
 * Assets (/api/assets/): the list's querystring, and an asset as a client writes it: the body schema and its
 * checks, shared by /api/assets/ and by the projects' "create and link" asset routes (/api/projects/assets/), so
 * both keep the inventory's rules and messages.
 */
import { isIP } from 'node:net';
import { ASSET_TYPES, isAssetType } from '../../../contract/assets.ts';
import { CRITICALITIES, isCriticality } from '../../../contract/severity.ts';
import { charCount } from '../../../contract/text.ts';
import { FieldErrors } from '../domain/errors.ts';
import { ASSET_ORDERINGS, type AssetFilters, type AssetValues } from '../repositories/assets.ts';
import { ListQuery, Nullable, Type, type Static } from './common.ts';
import { parseOrdering, parsePaging, parseText, type RawQuery } from './query.ts';

const MAX_ASSET_NAME = 200;
const MAX_TAGS = 50;
const MAX_TAG = 100;

export const ASSET_MESSAGES = {
  nameRequired: 'Le nom de l’actif est requis.',
  nameTooLong: `Le nom ne doit pas dépasser ${MAX_ASSET_NAME} caractères.`,
  duplicate: 'Un actif porte déjà ce nom.',
  assetType: `Type d’actif invalide. Valeurs possibles : ${ASSET_TYPES.join(', ')}.`,
  criticality: `Criticité invalide. Valeurs possibles : ${CRITICALITIES.join(', ')}.`,
  ip: 'Adresse IP invalide.',
  tags: `Au plus ${MAX_TAGS} étiquettes de ${MAX_TAG} caractères chacune.`,
  internetExposed: 'Exposition à Internet invalide : true ou false est attendu.',
} as const;

const text = (max: number) => Type.String({ maxLength: max });

/** The asset's writable fields. Types and sizes are checked by the schema; trimming, case and messages by `validateAsset`. */
export const assetFields = {
  name: Type.Optional(text(1000)),
  asset_type: Type.Optional(Type.String({ maxLength: 32, errorMessage: ASSET_MESSAGES.assetType })),
  hostname: Type.Optional(Nullable(text(1000))),
  ip_address: Type.Optional(Nullable(Type.String({ maxLength: 1000, errorMessage: ASSET_MESSAGES.ip }))),
  operating_system: Type.Optional(Nullable(text(1000))),
  criticality: Type.Optional(Type.String({ maxLength: 32, errorMessage: ASSET_MESSAGES.criticality })),
  internet_exposed: Type.Optional(Type.Boolean({ errorMessage: ASSET_MESSAGES.internetExposed })),
  owner: Type.Optional(Nullable(text(1000))),
  description: Type.Optional(text(100_000)),
  tags: Type.Optional(Type.Array(text(1000), { maxItems: 1000, errorMessage: ASSET_MESSAGES.tags })),
};

export const AssetBody = Type.Object(assetFields, { additionalProperties: false });
export type AssetBody = Static<typeof AssetBody>;

const optional = (v: string | null | undefined) => (v === undefined ? undefined : v?.trim() || null);

/** POST and PUT require the name; PATCH (and PUT) leave absent fields as they are. */
export function validateAsset(body: AssetBody, requireName: boolean): AssetValues {
  const errors = new FieldErrors();
  const out: AssetValues = {};
  const name = body.name?.trim();
  if (name === undefined || name === '') {
    if (requireName || name === '') errors.add('name', ASSET_MESSAGES.nameRequired);
  } else if (charCount(name) > MAX_ASSET_NAME) errors.add('name', ASSET_MESSAGES.nameTooLong);
  else out.name = name;
  if (body.asset_type !== undefined) {
    const t = body.asset_type.trim().toLowerCase();
    if (isAssetType(t)) out.assetType = t;
    else errors.add('asset_type', ASSET_MESSAGES.assetType);
  }
  if (body.criticality !== undefined) {
    const c = body.criticality.trim().toLowerCase();
    if (isCriticality(c)) out.criticality = c;
    else errors.add('criticality', ASSET_MESSAGES.criticality);
  }
  const ip = optional(body.ip_address);
  if (ip && isIP(ip) === 0) errors.add('ip_address', ASSET_MESSAGES.ip);
  else if (ip !== undefined) out.ipAddress = ip;
  if (body.hostname !== undefined) out.hostname = optional(body.hostname)!;
  if (body.operating_system !== undefined) out.operatingSystem = optional(body.operating_system)!;
  if (body.owner !== undefined) out.owner = optional(body.owner)!;
  if (body.internet_exposed !== undefined) out.internetExposed = body.internet_exposed;
  if (body.description !== undefined) out.description = body.description;
  if (body.tags !== undefined) {
    const tags = [...new Set(body.tags.map((t) => t.trim()).filter((t) => t !== ''))];
    if (tags.length > MAX_TAGS || tags.some((t) => charCount(t) > MAX_TAG)) errors.add('tags', ASSET_MESSAGES.tags);
    else out.tags = tags;
  }
  errors.throwIfAny();
  return out;
}

export const ListAssetsQuery = ListQuery({
  ordering: `Tri : ${ASSET_ORDERINGS.join(', ')} (préfixe - pour décroissant)`,
  asset_type: `Type d’actif : ${ASSET_TYPES.join(', ')}`,
  criticality: `Criticité : ${CRITICALITIES.join(', ')}`,
  text: 'Recherche dans le nom, l’hôte, l’adresse IP et la description',
});

/** A filter on one of a fixed list of lower-case values: undefined when absent, `message` when unknown. */
function oneOf<T extends string>(
  errors: FieldErrors,
  raw: string | undefined,
  known: (value: string) => value is T,
  field: string,
  message: string,
): T | undefined {
  const value = raw?.trim().toLowerCase() || undefined;
  if (value === undefined || known(value)) return value;
  errors.add(field, message);
  return undefined;
}

/** The list's paging, filters and ordering (by name by default). */
export function readAssetList(query: RawQuery) {
  const errors = new FieldErrors();
  const paging = parsePaging(errors, query);
  const filters: AssetFilters = {
    assetType: oneOf(errors, query.asset_type, isAssetType, 'asset_type', ASSET_MESSAGES.assetType),
    criticality: oneOf(errors, query.criticality, isCriticality, 'criticality', ASSET_MESSAGES.criticality),
    text: parseText(errors, query, 'text'),
  };
  const ordering = parseOrdering(errors, query.ordering, ASSET_ORDERINGS, { field: 'name', desc: false });
  errors.throwIfAny();
  return { paging, filters, ordering };
}
