/**
 * What the finding, scan, threat (and dashboard) routes share beyond routes/api/shared.ts: a one-field French 400,
 * the comma-separated enum filters, body field schemas and checks, a row or 404, the check that an asset id names
 * one of the tenant's assets, and route options under a documentation tag.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TenantDb } from '../../../db/tenant-scope.ts';
import { ApiError, type FieldErrors } from '../../../domain/errors.ts';
import { OrNull, Type, WriteBody } from '../../../schemas/common.ts';
import { accessGuards, notFound } from '../shared.ts';

export const ASSET_UNKNOWN = 'Actif introuvable.';
export const CVE_RE = /^CVE-\d{4}-\d{4,}$/;
export const CVE_INVALID = 'Identifiant CVE invalide (format attendu : CVE-AAAA-NNNN).';

/** 400 on one field, the message as the detail too. */
export const invalid = (field: string, message: string) =>
  new ApiError(400, 'invalid', message, { fields: { [field]: [message] } });

/** `a,b`: every value one of `allowed` (else `message` on `field`); undefined when absent. */
export function csvOf<T extends string>(
  errors: FieldErrors,
  raw: string | undefined,
  allowed: readonly T[],
  field: string,
  message: string,
): T[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const values = raw.split(',').map((v) => v.trim());
  if (values.every((v) => (allowed as readonly string[]).includes(v))) return values as T[];
  errors.add(field, message);
  return undefined;
}

/**
 * A text field of a body, trimmed: undefined when a PATCH (`partial`) leaves it out, '' when a full write does;
 * 400 on `field` when longer than `max` (`tooLong`), or empty when `required` (that message).
 */
export function trimmed(
  raw: string | null | undefined,
  partial: boolean,
  field: string,
  max: number,
  tooLong: string,
  required?: string,
): string | undefined {
  if (raw === undefined && partial) return undefined;
  const value = (raw ?? '').trim();
  if (required !== undefined && value === '') throw invalid(field, required);
  if (value.length > max) throw invalid(field, tooLong);
  return value;
}

/** An optional text of a body, at most `maxLength` characters (the route's own message for a longer one). */
export const optionalText = (maxLength: number, tooLong?: string) =>
  Type.Optional(Type.String({ maxLength, ...(tooLong === undefined ? {} : { errorMessage: { maxLength: tooLong } }) }));

/** An optional body field of `type` or null, with one message for a wrong value (schemas/common.ts `OrNull`). */
export const orNull = <T extends 'string' | 'integer' | 'number'>(type: T, options: Record<string, unknown> = {}) =>
  Type.Optional(OrNull<T extends 'string' ? string : number>(type, options));

/** A write body: `fields`, plus the read-only fields of `wire` accepted and ignored (schemas/common.ts). */
export const writeBody = WriteBody;

/** The tenant's row, or 404. */
export async function found<T>(request: FastifyRequest, read: (tx: TenantDb) => Promise<T | undefined>): Promise<T> {
  const row = await request.tenantDb(read);
  if (!row) throw notFound();
  return row;
}

/**
 * An asset id of a body must name one of the tenant's assets (the foreign key alone would accept another
 * tenant's): 400 on asset_id otherwise. Answers what `lookup` found (an asset's name, say).
 */
export async function checkAsset<T>(
  request: FastifyRequest,
  assetId: number | null | undefined,
  lookup: (tx: TenantDb, id: number) => Promise<T | undefined | false>,
): Promise<T | undefined> {
  if (assetId === null || assetId === undefined) return undefined;
  const asset = await request.tenantDb((tx) => lookup(tx, assetId));
  if (asset === undefined || asset === false) throw invalid('asset_id', ASSET_UNKNOWN);
  return asset;
}

/**
 * Route options under one documentation tag: `read(schema)` for the tenant's readers, `write(schema)` for its
 * writers (viewers get the audited 403 before their body is looked at).
 */
export function taggedRoutes(app: FastifyInstance, tags: string[]) {
  const guard = accessGuards(app);
  return {
    read: <S extends object>(schema: S) => ({ ...guard.read, schema: { tags, ...schema } }),
    write: <S extends object>(schema: S) => ({ ...guard.write, schema: { tags, ...schema } }),
  };
}
