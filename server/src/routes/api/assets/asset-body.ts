import { isIP } from 'node:net';
import { ASSET_TYPES, isAssetType } from '../../../../../contract/assets.ts';
import { CRITICALITIES, isCriticality } from '../../../../../contract/severity.ts';
import { ApiError, FieldErrors } from '../../../domain/errors.ts';
import type { AssetValues } from '../../../repositories/assets.ts';
import { uniqueViolation } from '../../../repositories/tenant-users.ts';
import { Nullable, Type, type Static } from '../../../schemas/common.ts';

/**
 * An asset as a client writes it: the body schema and its checks, shared by /api/assets/ and by the projects'
 * "create and link" asset routes (/api/projects/assets/), so both keep the inventory's rules and messages.
 */

export const MAX_ASSET_NAME = 200;
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
  } else if (name.length > MAX_ASSET_NAME) errors.add('name', ASSET_MESSAGES.nameTooLong);
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
  if (body.description !== undefined) out.description = body.description;
  if (body.tags !== undefined) {
    const tags = [...new Set(body.tags.map((t) => t.trim()).filter((t) => t !== ''))];
    if (tags.length > MAX_TAGS || tags.some((t) => t.length > MAX_TAG)) errors.add('tags', ASSET_MESSAGES.tags);
    else out.tags = tags;
  }
  errors.throwIfAny();
  return out;
}

/** A write that hits the (tenant, name) unique index is a 409 with the field named. */
export async function unlessDuplicateAsset<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (uniqueViolation(err) !== undefined) {
      const message = ASSET_MESSAGES.duplicate;
      throw new ApiError(409, 'duplicate', message, { fields: { name: [message] } });
    }
    throw err;
  }
}
