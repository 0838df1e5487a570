/**
 * Helpers shared by the tenant-data routes (findings, assets, scans, threats, projects): paging, booleans, ids,
 * ordering with French messages, and the read/write guards.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/errors.ts';
import { canRead, canWrite, type Actor } from '../../policies/index.ts';
import { signedIn } from '../../plugins/app/authorization.ts';
import type { FieldErrors } from '../../domain/errors.ts';

export const MAX_PAGE_SIZE = 500;
export const DEFAULT_PAGE_SIZE = 25;

export const notFound = () => new ApiError(404, 'not_found', 'Ressource introuvable.');

/** A querystring as Fastify hands it over: strings only (ajv does not coerce). */
export type RawQuery = Record<string, string | undefined>;

/** Every key a list accepts is a string; unknown keys are allowed (clients add cache-busting parameters). */
export function stringQuery(keys: readonly string[]) {
  return {
    type: 'object',
    properties: Object.fromEntries(keys.map((k) => [k, { type: 'string', maxLength: 1000 }])),
  } as const;
}

export const idParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string' } },
} as const;

/** Ids are positive integers; anything else is simply not found. */
export function parseId(raw: string): number | undefined {
  return /^[1-9]\d{0,15}$/.test(raw) && Number.isSafeInteger(Number(raw)) ? Number(raw) : undefined;
}

export function positiveInt(raw: string | undefined): number | undefined | null {
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = /^\d{1,15}$/.test(raw.trim()) ? Number(raw.trim()) : 0;
  return n >= 1 ? n : null;
}

export function parsePaging(
  errors: FieldErrors,
  query: RawQuery,
  maxPageSize = MAX_PAGE_SIZE,
): { page: number; pageSize: number } {
  const page = positiveInt(query.page);
  if (page === null) errors.add('page', 'Numéro de page invalide : un entier supérieur ou égal à 1 est attendu.');
  const pageSize = positiveInt(query.page_size);
  if (pageSize === null || (pageSize !== undefined && pageSize > maxPageSize)) {
    errors.add('page_size', `Taille de page invalide : un entier entre 1 et ${maxPageSize} est attendu.`);
  }
  return { page: page ?? 1, pageSize: pageSize ?? DEFAULT_PAGE_SIZE };
}

export function parseBoolean(errors: FieldErrors, query: RawQuery, key: string): boolean | undefined {
  const raw = query[key]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return undefined;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  errors.add(key, 'Valeur invalide : true ou false attendu.');
  return undefined;
}

export function parseQueryId(errors: FieldErrors, query: RawQuery, key: string): number | undefined {
  const raw = query[key]?.trim();
  if (raw === undefined || raw === '') return undefined;
  const id = parseId(raw);
  if (id === undefined) errors.add(key, 'Identifiant invalide : un entier positif est attendu.');
  return id;
}

export function parseText(errors: FieldErrors, query: RawQuery, key: string, max = 200): string | undefined {
  const text = query[key]?.trim();
  if (!text) return undefined;
  if (text.length > max) errors.add(key, `La recherche ne doit pas dépasser ${max} caractères.`);
  return text;
}

export function parseOrdering<F extends string>(
  errors: FieldErrors,
  raw: string | undefined,
  fields: readonly F[],
  fallback: { field: F; desc: boolean },
): { field: F; desc: boolean } {
  const value = raw?.trim();
  if (!value) return fallback;
  const desc = value.startsWith('-');
  const field = (desc ? value.slice(1) : value) as F;
  if (!fields.includes(field)) {
    errors.add('ordering', `Tri invalide. Valeurs possibles : ${fields.join(', ')} (préfixe - pour décroissant).`);
    return fallback;
  }
  return { field, desc };
}

/** {count, next, previous, results} with relative links that keep the query's own parameters. */
export function pagedResponse<T>(
  path: string,
  query: RawQuery,
  keys: readonly string[],
  paging: { page: number; pageSize: number },
  count: number,
  results: T[],
) {
  const link = (page: number) => {
    const params = new URLSearchParams();
    for (const k of keys) {
      const v = query[k];
      if (k !== 'page' && v !== undefined && v !== '') params.set(k, v);
    }
    params.set('page', String(page));
    return `${path}?${params.toString()}`;
  };
  const lastPage = Math.max(1, Math.ceil(count / paging.pageSize));
  return {
    count,
    next: paging.page < lastPage ? link(paging.page + 1) : null,
    previous: paging.page > 1 ? link(Math.min(paging.page - 1, lastPage)) : null,
    results,
  };
}

/** Route options: a signed-in reader of the tenant, and a writer (viewers get 403 before their body is looked at). */
export function accessGuards(
  app: FastifyInstance,
  writer: { may: (actor: Actor) => boolean; refusal: string } = {
    may: canWrite,
    refusal: 'modification réservée aux contributeurs',
  },
) {
  const read = app.guard((auth) => canRead(auth.actor));
  const requireWrite = async (request: FastifyRequest) =>
    app.authorize(request, writer.may(signedIn(request).actor), writer.refusal);
  return { read, write: { preValidation: [...read.preValidation, requireWrite] } };
}
