/**
 * Querystring readers shared by the list routes: paging, booleans, ids, free text, ordering and comma-separated
 * enum filters, each with its French message on the field (collected in FieldErrors, answered as one 400).
 */
import { FieldErrors } from '../domain/errors.ts';
import { charCount } from '../../../contract/text.ts';

export const MAX_PAGE_SIZE = 500;
export const DEFAULT_PAGE_SIZE = 25;

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

/** The rows a page covers, as a repository's limit and offset. */
export const pageWindow = ({ page, pageSize }: { page: number; pageSize: number }) => ({
  limit: pageSize,
  offset: (page - 1) * pageSize,
});

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
  if (charCount(text) > max) errors.add(key, `La recherche ne doit pas dépasser ${max} caractères.`);
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

/** Forwards to `errors`, under the older lists' name for the page size: `size`, not `page_size`. */
class SizeErrors extends FieldErrors {
  constructor(private readonly errors: FieldErrors) {
    super();
  }
  override add(field: string, message: string): void {
    this.errors.add(field === 'page_size' ? 'size' : field, message);
  }
}

/** `?page=&size=` (notifications, audit trail): parsePaging's rules and messages, `defaultSize` when absent. */
export function parseSizePaging(
  errors: FieldErrors,
  query: RawQuery,
  defaultSize: number,
  maxSize: number,
): { page: number; size: number } {
  const size = query.size?.trim() ? query.size : String(defaultSize);
  const { page, pageSize } = parsePaging(new SizeErrors(errors), { page: query.page, page_size: size }, maxSize);
  return { page, size: pageSize };
}

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME_RE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?$/i;
const DATE_INVALID = 'Date invalide : une date (AAAA-MM-JJ) ou une date et heure ISO 8601 est attendue.';
const DATE_ORDER = 'La date de fin précède la date de début.';

/** An ISO date or time; a date alone is a whole UTC day, a time without an offset is UTC. */
function parseMoment(errors: FieldErrors, query: RawQuery, key: string): { at: Date; dateOnly: boolean } | undefined {
  const raw = query[key]?.trim();
  if (!raw) return undefined;
  const dateOnly = DATE_RE.test(raw);
  let at: Date | undefined;
  if (dateOnly) at = new Date(`${raw}T00:00:00Z`);
  else if (DATE_TIME_RE.test(raw)) at = new Date(/(Z|[+-]\d{2}:?\d{2})$/i.test(raw) ? raw : `${raw}Z`);
  // new Date() rolls 2026-02-31 over to March: the date part must read back unchanged.
  if (!at || Number.isNaN(at.getTime()) || (dateOnly && at.toISOString().slice(0, 10) !== raw)) {
    errors.add(key, DATE_INVALID);
    return undefined;
  }
  return { at, dateOnly };
}

/**
 * `?date_from=&date_to=` of the trails (audit, server logs): ISO dates or times, both bounds inclusive, a date alone
 * covering its whole UTC day. As the repositories take it: `to` is exclusive when `date_to` was a date alone (next
 * UTC midnight).
 */
export function parseDateRange(
  errors: FieldErrors,
  query: RawQuery,
): { from: Date | undefined; to: Date | undefined; toExclusive: boolean | undefined } {
  const from = parseMoment(errors, query, 'date_from');
  const to = parseMoment(errors, query, 'date_to');
  const end = to && (to.dateOnly ? new Date(to.at.getTime() + 86_400_000) : to.at);
  if (from && end && (to.dateOnly ? end <= from.at : end < from.at)) errors.add('date_to', DATE_ORDER);
  return { from: from?.at, to: end, toExclusive: to?.dateOnly };
}
