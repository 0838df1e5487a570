import { apiRequest, apiRequestWithOrigin, type DataOrigin } from '../../lib/api-client.ts';

/** docs/api-admin.md "Models": the generic administration over the server's allow-list. */

export type FieldType =
  'string' | 'text' | 'integer' | 'number' | 'boolean' | 'datetime' | 'date' | 'uuid' | 'json' | 'array' | 'enum';

export interface ModelField {
  name: string;
  /** The field's French name (older servers send none: the name is shown). */
  label?: string;
  type: FieldType;
  required: boolean;
  read_only: boolean;
  create_only?: boolean;
  choices?: string[];
  max_length?: number;
  max_items?: number;
  min?: number;
  max?: number;
  references?: string;
}

export type ModelOperation = 'create' | 'update' | 'delete';

export interface AdminModel {
  name: string;
  label: string;
  tenant_scoped: boolean;
  read_only: boolean;
  operations: ModelOperation[];
  primary_key: string[];
  fields: ModelField[];
}

export type ModelRow = Record<string, unknown>;

export interface ModelPage {
  results: ModelRow[];
  count: number;
  page: number;
  page_size: number;
  pages: number;
}

/** spec §9: models page by 10. */
export const MODEL_PAGE_SIZE = 10;
const BASE = '/admin/models/';

const modelPath = (model: string) => `${BASE}${encodeURIComponent(model)}/`;
const rowPath = (model: string, id: string) => `${modelPath(model)}${encodeURIComponent(id)}/`;

/** A row's `{id}` in the paths: its primary key, a composite one joined with ':'. */
export function rowId(model: AdminModel, row: ModelRow): string {
  return model.primary_key.map((f) => String(row[f] as string | number)).join(':');
}

export async function fetchModels(): Promise<{ models: AdminModel[]; origin: DataOrigin }> {
  const { data, origin } = await apiRequestWithOrigin<{ models?: AdminModel[] } | null>(BASE, {
    allowForbidden: true,
  });
  return { models: Array.isArray(data?.models) ? data.models : [], origin };
}

export interface ModelQuery {
  page: number;
  q?: string | undefined;
  ordering?: string | undefined;
  /** Superusers: one tenant's rows of a tenant-scoped model. */
  tenant?: string | undefined;
}

export async function fetchModelRows(
  model: string,
  query: ModelQuery,
): Promise<{ data: ModelPage; origin: DataOrigin }> {
  const { data, origin } = await apiRequestWithOrigin<Partial<ModelPage> | null>(modelPath(model), {
    query: {
      page: query.page,
      page_size: MODEL_PAGE_SIZE,
      ...(query.q ? { q: query.q } : {}),
      ...(query.ordering ? { ordering: query.ordering } : {}),
      ...(query.tenant ? { tenant: query.tenant } : {}),
    },
    allowForbidden: true,
  });
  const results = Array.isArray(data?.results) ? data.results : [];
  return {
    data: {
      results,
      count: typeof data?.count === 'number' ? data.count : results.length,
      page: typeof data?.page === 'number' ? data.page : query.page,
      page_size: typeof data?.page_size === 'number' ? data.page_size : MODEL_PAGE_SIZE,
      pages: typeof data?.pages === 'number' ? Math.max(1, data.pages) : 1,
    },
    origin,
  };
}

/** Writes rethrow the server's French error (and its `fields`). */
export function createModelRow(model: string, body: ModelRow, tenant?: string): Promise<ModelRow> {
  return apiRequest<ModelRow>(modelPath(model), {
    method: 'POST',
    body,
    ...(tenant ? { query: { tenant } } : {}),
    allowForbidden: true,
  });
}

export function updateModelRow(model: string, id: string, body: ModelRow): Promise<ModelRow> {
  return apiRequest<ModelRow>(rowPath(model, id), { method: 'PATCH', body, allowForbidden: true });
}

export async function deleteModelRow(model: string, id: string): Promise<void> {
  await apiRequest<unknown>(rowPath(model, id), { method: 'DELETE', allowForbidden: true });
}
