/** The model administration's input (docs/api-admin.md "Models"): path names, list query, ?tenant=. */
import type { AdminModel, ModelField } from '../../domain/admin-models.ts';
import { charCount } from '../../../../contract/text.ts';
import { FieldErrors } from '../../domain/errors.ts';
import { FilterQuery, ListQuery, Type } from '../common.ts';
import { invalid } from '../fields.ts';
import { parseOrdering, parsePaging, parseText, type RawQuery } from '../query.ts';
import { isUuid } from './common.ts';

/** spec §9: model lists page by 10 by default. */
const DEFAULT_MODEL_PAGE_SIZE = 10;
const MAX_MODEL_PAGE_SIZE = 100;
const MAX_SEARCH = 200;

const TENANT = 'Organisation (UUID) : superutilisateurs seulement, une autre que la courante est refusée';
// Strings only, unknown keys allowed (clients add cache-busting parameters).
export const ModelListQuery = ListQuery({
  q: `Recherche (${MAX_SEARCH} caractères au plus)`,
  ordering: 'Tri : un champ du modèle (préfixe - pour décroissant)',
  tenant: TENANT,
});
export const TenantQuery = FilterQuery({ tenant: TENANT });

const modelName = Type.String({ maxLength: 100, description: 'Nom du modèle' });
export const ModelParams = Type.Object({ model: modelName });
export const RowParams = Type.Object({
  model: modelName,
  id: Type.String({ maxLength: 300, description: 'Clé primaire (parties séparées par « : »)' }),
});

interface ListOptions {
  page: number;
  pageSize: number;
  search: string | undefined;
  ordering: { field: ModelField; desc: boolean };
}

/** Sortable: every scalar field (lists and JSON have no useful order). */
function sortableFields(model: AdminModel): ModelField[] {
  return model.fields.filter((f) => f.type !== 'json' && f.type !== 'array');
}

/** page (≥ 1), page_size (1–100, default 10), q (≤ 200 characters), ordering (a field, "-" for descending). */
export function parseListQuery(model: AdminModel, query: RawQuery): ListOptions {
  const errors = new FieldErrors();
  const { page, pageSize } = parsePaging(errors, query, MAX_MODEL_PAGE_SIZE);
  const search = parseText(errors, query, 'q', MAX_SEARCH);
  // PostgreSQL stores no NUL character in text, so none can match.
  if (search?.includes('\u0000') && charCount(search) <= MAX_SEARCH) {
    errors.add('q', 'La recherche contient un caractère nul (\\u0000), refusé.');
  }
  const sortable = sortableFields(model);
  const { field: name, desc } = parseOrdering(
    errors,
    query.ordering,
    sortable.map((f) => f.name),
    { field: model.ordering.field.name, desc: model.ordering.desc },
  );
  const ordering = { field: sortable.find((f) => f.name === name) ?? model.ordering.field, desc };
  errors.throwIfAny();
  return { page, pageSize: query.page_size?.trim() ? pageSize : DEFAULT_MODEL_PAGE_SIZE, search, ordering };
}

/** ?tenant=<uuid>, lower-cased; undefined when absent. */
export function parseTenantParam(query: RawQuery): string | undefined {
  const raw = query.tenant?.trim();
  if (!raw) return undefined;
  if (!isUuid(raw)) throw invalid('tenant', 'Organisation invalide : un identifiant UUID est attendu.');
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
      if (part === '' || charCount(part) > 200 || part.includes('\u0000')) return undefined;
      key.push(part);
    }
  }
  return key;
}
