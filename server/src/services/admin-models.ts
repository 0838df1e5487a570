import { getTableColumns } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { blogImages, idempotencyKeys, passwordResetTokens, projectDocuments, refreshTokens } from '../db/schema.ts';
import type { AdminModel, FieldType, ModelField } from '../domain/admin-models.ts';
import { ADMIN_MODEL_SPECS, type FieldSpec, type ModelSpec } from './admin-model-specs.ts';

/**
 * The generic model administration (docs/api-admin.md "Models"): the allow-list (admin-model-specs.ts) compiled
 * against Drizzle's table metadata, which gives each listed column's type, nullability and default.
 */

// The model types are pure and live in domain/ (the repository works on them); kept here for existing imports.
export {
  FIELD_TYPES,
  isTenantScoped,
  type AdminModel,
  type FieldType,
  type ModelField,
  type ModelOperation,
  type ModelScope,
} from '../domain/admin-models.ts';

/** Tables that must never be reachable here, whatever the allow-list says (tokens, storage keys). */
const FORBIDDEN_TABLES: readonly PgTable[] = [
  refreshTokens,
  passwordResetTokens,
  idempotencyKeys,
  projectDocuments,
  blogImages,
];
/** Column names that must never be exposed or accepted, whatever the allow-list says. */
export const FORBIDDEN_FIELD_RE =
  /password|secret|token|storage_key|text_hash|search_vector|dedupe|job_id|report_file/i;

const INT_RANGES: Record<string, [number, number]> = {
  PgSmallInt: [-32_768, 32_767],
  PgInteger: [-2_147_483_648, 2_147_483_647],
  PgBigInt53: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};
const DEFAULT_MAX_LENGTH = { string: 1000, text: 100_000, array: 1000 } as const;

function typeOf(column: PgColumn, spec: FieldSpec, model: string): FieldType {
  if (spec.choices) return 'enum';
  switch (column.columnType) {
    case 'PgText':
      return spec.long ? 'text' : 'string';
    case 'PgUUID':
      return 'uuid';
    case 'PgSmallInt':
    case 'PgInteger':
    case 'PgBigInt53':
      return 'integer';
    case 'PgDoublePrecision':
      return 'number';
    case 'PgBoolean':
      return 'boolean';
    case 'PgTimestamp':
      return 'datetime';
    case 'PgDateString':
      return 'date';
    case 'PgJsonb':
      return 'json';
    case 'PgArray':
      return 'array';
    default:
      // A column type this administration does not know how to show or check is a programming error.
      throw new Error(`admin-models: ${model}.${spec.key} has an unsupported column type ${column.columnType}`);
  }
}

function compile(spec: ModelSpec): AdminModel {
  if (FORBIDDEN_TABLES.includes(spec.table)) throw new Error(`admin-models: ${spec.name} may not be administered`);
  const columns = getTableColumns(spec.table) as Record<string, PgColumn>;
  const fields = spec.fields.map((f): ModelField => {
    const column = columns[f.key];
    if (!column) throw new Error(`admin-models: ${spec.name}.${f.key} is not a column`);
    if (FORBIDDEN_FIELD_RE.test(f.key) || FORBIDDEN_FIELD_RE.test(column.name)) {
      throw new Error(`admin-models: ${spec.name}.${column.name} may not be administered`);
    }
    const type = typeOf(column, f, spec.name);
    const identity = (column as { generatedIdentity?: unknown }).generatedIdentity !== undefined;
    // Read-only unless the model can be written at all; the tenant and identity columns never are.
    const readOnly = f.readOnly === true || spec.operations.length === 0 || identity || f.key === 'tenantId';
    const range = INT_RANGES[column.columnType];
    const field: ModelField = {
      name: column.name,
      key: f.key,
      column,
      type,
      required: !readOnly && column.notNull && !column.hasDefault,
      readOnly,
      createOnly: f.createOnly === true,
      nullable: !column.notNull,
      declared: {
        ...(f.min !== undefined ? { min: f.min } : {}),
        ...(f.max !== undefined ? { max: f.max } : {}),
      },
    };
    if (f.choices) field.choices = f.choices;
    if (type === 'string' || type === 'text' || type === 'array') {
      field.maxLength = f.maxLength ?? DEFAULT_MAX_LENGTH[type];
    }
    if (type === 'array') field.maxItems = f.maxItems ?? 100;
    if (range) {
      field.min = f.min ?? range[0];
      field.max = f.max ?? range[1];
    } else if (f.min !== undefined || f.max !== undefined) {
      if (f.min !== undefined) field.min = f.min;
      if (f.max !== undefined) field.max = f.max;
    }
    if (f.check) field.check = f.check;
    if (f.normalize) field.normalize = f.normalize;
    if (f.references) field.references = f.references;
    return field;
  });
  const byName = new Map(fields.map((f) => [f.name, f]));
  const byKey = new Map(fields.map((f) => [f.key, f]));
  const pick = (key: string) => {
    const field = byKey.get(key);
    if (!field) throw new Error(`admin-models: ${spec.name}.${key} must be a listed field`);
    return field;
  };
  const model: AdminModel = {
    name: spec.name,
    label: spec.label,
    table: spec.table,
    scope: spec.scope,
    operations: spec.operations,
    writers: spec.writers,
    fields,
    byName,
    primaryKey: spec.primaryKey.map(pick),
    ordering: { field: pick(spec.ordering.key), desc: spec.ordering.desc },
    search: spec.search.map(pick),
  };
  if (spec.elsewhere) model.elsewhere = spec.elsewhere;
  if (spec.scope === 'tenant') {
    const tenantColumn = columns.tenantId;
    if (!tenantColumn) throw new Error(`admin-models: ${spec.name} has no tenant_id`);
    model.tenantColumn = tenantColumn;
  } else if (spec.scope === 'tenant-row') {
    model.tenantColumn = columns.id!;
  }
  if (columns.updatedAt && spec.operations.includes('update')) model.touchColumn = 'updatedAt';
  if (spec.selfProtected) {
    for (const key of [spec.selfProtected.ownerKey, ...spec.selfProtected.keys]) pick(key);
    model.selfProtected = spec.selfProtected;
  }
  if (spec.crossCheck) model.crossCheck = spec.crossCheck;
  return model;
}

/** Every administrable model, checked once at start-up (a wrong key or a forbidden column fails loudly). */
export const ADMIN_MODELS: readonly AdminModel[] = ADMIN_MODEL_SPECS.map(compile);
const BY_NAME = new Map(ADMIN_MODELS.map((m) => [m.name, m]));

export function findAdminModel(name: string): AdminModel | undefined {
  return BY_NAME.get(name);
}

for (const model of ADMIN_MODELS) {
  for (const field of model.fields) {
    if (field.references && BY_NAME.get(field.references)?.scope !== 'tenant') {
      throw new Error(`admin-models: ${model.name}.${field.name} must reference a tenant-scoped model`);
    }
  }
}
