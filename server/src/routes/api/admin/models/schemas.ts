import { isUuid } from '../../../../services/admin-model-values.ts';
import type { AdminModel, ModelField } from '../../../../services/admin-models.ts';
import { positiveInt, stringQuery, type RawQuery } from '../../shared.ts';
import { FieldErrors } from '../../../../domain/errors.ts';

/** §9: model lists page by 10 by default. */
export const DEFAULT_MODEL_PAGE_SIZE = 10;
export const MAX_MODEL_PAGE_SIZE = 100;
const MAX_SEARCH = 200;

export const LIST_KEYS = ['page', 'page_size', 'q', 'ordering', 'tenant'] as const;
// Strings only, unknown keys allowed (clients add cache-busting parameters).
export const listQuery = stringQuery(LIST_KEYS);
export const tenantQuery = stringQuery(['tenant']);

export interface ModelParams {
  model: string;
}
export interface RowParams {
  model: string;
  id: string;
}

export const modelParams = {
  type: 'object',
  required: ['model'],
  properties: { model: { type: 'string', maxLength: 100 } },
} as const;
export const rowParams = {
  type: 'object',
  required: ['model', 'id'],
  properties: { model: { type: 'string', maxLength: 100 }, id: { type: 'string', maxLength: 300 } },
} as const;

export interface ListOptions {
  page: number;
  pageSize: number;
  search: string | undefined;
  ordering: { field: ModelField; desc: boolean };
}

/** Sortable: every scalar field (lists and JSON have no useful order). */
export function sortableFields(model: AdminModel): ModelField[] {
  return model.fields.filter((f) => f.type !== 'json' && f.type !== 'array');
}

/** page (≥ 1), page_size (1–100, default 10), q (≤ 200 characters), ordering (a field, "-" for descending). */
export function parseListQuery(model: AdminModel, query: RawQuery): ListOptions {
  const errors = new FieldErrors();
  const page = positiveInt(query.page);
  if (page === null) errors.add('page', 'Numéro de page invalide : un entier supérieur ou égal à 1 est attendu.');
  const pageSize = positiveInt(query.page_size);
  if (pageSize === null || (pageSize !== undefined && pageSize > MAX_MODEL_PAGE_SIZE)) {
    errors.add('page_size', `Taille de page invalide : un entier entre 1 et ${MAX_MODEL_PAGE_SIZE} est attendu.`);
  }
  const search = query.q?.trim() || undefined;
  if (search !== undefined && search.length > MAX_SEARCH) {
    errors.add('q', `La recherche ne doit pas dépasser ${MAX_SEARCH} caractères.`);
  } else if (search?.includes('\u0000')) {
    // PostgreSQL stores no NUL character in text, so none can match.
    errors.add('q', 'La recherche contient un caractère nul (\\u0000), refusé.');
  }
  let ordering = model.ordering;
  const rawOrdering = query.ordering?.trim();
  if (rawOrdering) {
    const desc = rawOrdering.startsWith('-');
    const name = desc ? rawOrdering.slice(1) : rawOrdering;
    const sortable = sortableFields(model);
    const field = sortable.find((f) => f.name === name);
    if (field) ordering = { field, desc };
    else {
      errors.add(
        'ordering',
        `Tri invalide. Valeurs possibles : ${sortable.map((f) => f.name).join(', ')} (préfixe - pour décroissant).`,
      );
    }
  }
  errors.throwIfAny();
  return { page: page ?? 1, pageSize: pageSize ?? DEFAULT_MODEL_PAGE_SIZE, search, ordering };
}

/** ?tenant=<uuid>, lower-cased; undefined when absent. */
export function parseTenantParam(query: RawQuery): string | undefined {
  const raw = query.tenant?.trim();
  if (!raw) return undefined;
  if (!isUuid(raw)) {
    const errors = new FieldErrors();
    errors.add('tenant', 'Organisation invalide : un identifiant UUID est attendu.');
    errors.throwIfAny();
  }
  return raw.toLowerCase();
}

const INTEGER_ID_RE = /^[1-9]\d{0,15}$/;

/**
 * The primary key named by a path id (parts joined by ":" for a composite key), or undefined when it cannot name
 * a row: the route then answers 404, like for a row that does not exist.
 */
export function parseRowId(model: AdminModel, raw: string): unknown[] | undefined {
  const parts = model.primaryKey.length === 1 ? [raw] : raw.split(':');
  if (parts.length !== model.primaryKey.length) return undefined;
  const key: unknown[] = [];
  for (const [i, field] of model.primaryKey.entries()) {
    const part = parts[i]!;
    if (field.type === 'integer') {
      if (!INTEGER_ID_RE.test(part) || !Number.isSafeInteger(Number(part))) return undefined;
      key.push(Number(part));
    } else if (field.type === 'uuid') {
      if (!isUuid(part)) return undefined;
      key.push(part.toLowerCase());
    } else {
      if (part === '' || part.length > 200 || part.includes('\u0000')) return undefined;
      key.push(part);
    }
  }
  return key;
}
