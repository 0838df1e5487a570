import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';

// What the generic model administration works on (docs/api-admin.md "Models"): a compiled, allow-listed model. The
// types sit here, below the repositories that read and write through them and the service that builds them.

export const FIELD_TYPES = [
  'string',
  'text',
  'integer',
  'number',
  'boolean',
  'datetime',
  'date',
  'uuid',
  'json',
  'array',
  'enum',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/**
 * Where a model's rows belong:
 * - tenant: rows carry tenant_id; a tenant admin sees their current tenant's rows only;
 * - tenant-row: the tenants table itself; a tenant admin sees their own tenant;
 * - members: accounts, global but seen through the memberships of a tenant;
 * - reference: shared reference data (CVE, CWE) every administrator reads;
 * - platform: platform rows no tenant owns (the mail outbox), superusers only.
 */
export type ModelScope = 'tenant' | 'tenant-row' | 'members' | 'reference' | 'platform';
export type ModelOperation = 'create' | 'update' | 'delete';

/** What the allow-list may say of a field's values; the compiled field keeps it (with the column's own limits). */
export interface FieldRules {
  choices?: readonly string[];
  maxLength?: number;
  min?: number;
  max?: number;
  /** Arrays: at most this many items (each at most maxLength characters). */
  maxItems?: number;
  /** Strings: a French message when the (trimmed, normalised) value is not acceptable. */
  check?: (value: string) => string | undefined;
  normalize?: (value: string) => string;
  /** The model whose row this integer names; it must exist in the same tenant. */
  references?: string;
}

export interface ModelField extends FieldRules {
  name: string;
  key: string;
  column: PgColumn;
  type: FieldType;
  /** Must be given on creation (not null and no default). */
  required: boolean;
  readOnly: boolean;
  createOnly: boolean;
  nullable: boolean;
  /** Bounds stated by the allow-list (shown in the metadata and messages), not the column type's own range. */
  declared: { min?: number; max?: number };
}

/** What the allow-list says of a model and the compiled model keeps as said. */
export interface ModelRules {
  name: string;
  label: string;
  table: PgTable;
  scope: ModelScope;
  /** What this administration may do besides reading; empty for a read-only model. */
  operations: readonly ModelOperation[];
  /** Who writes: the tenant's admins as well, or superusers only (accounts and memberships govern access). */
  writers: 'admin' | 'superuser';
  /** Where the missing operations are done instead (French, for the 405 message). */
  elsewhere?: string;
  /** Fields nobody may change on their own row (a superuser cannot lock themselves out). */
  selfProtected?: { ownerKey: string; keys: readonly string[] };
  /** A rule over several fields, checked on the row as it would be stored; [api field, French message]. */
  crossCheck?: (row: Record<string, unknown>) => [string, string] | undefined;
}

export interface AdminModel extends ModelRules {
  fields: readonly ModelField[];
  byName: ReadonlyMap<string, ModelField>;
  primaryKey: readonly ModelField[];
  ordering: { field: ModelField; desc: boolean };
  search: readonly ModelField[];
  /** The tenant column of a tenant-scoped model (the id of the tenants table). */
  tenantColumn?: PgColumn;
  /** Set to now() on every change, when the table has one. */
  touchColumn?: string;
}

/** Tenant-scoped in the metadata's sense: a tenant admin sees only their tenant's rows. */
export function isTenantScoped(model: AdminModel): boolean {
  return model.scope === 'tenant' || model.scope === 'tenant-row' || model.scope === 'members';
}
