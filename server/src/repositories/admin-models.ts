import { and, asc, count, eq, ilike, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Db } from '../db/client.ts';
import { memberships, tenants, users } from '../db/schema.ts';
import type { AdminModel, ModelField } from '../domain/admin-models.ts';

/** A row as read through the allow-list: API field name → stored value. */
export type ModelRow = Record<string, unknown>;

export interface ModelPageOptions {
  /** Only this tenant's rows (tenant-scoped models); undefined for every tenant's (superusers). */
  tenantId: string | undefined;
  search: string | undefined;
  ordering: { field: ModelField; desc: boolean };
  limit: number;
  offset: number;
}

/** Only the allow-listed columns are ever selected, so nothing else can leave. */
function selection(model: AdminModel): Record<string, PgColumn> {
  return Object.fromEntries(model.fields.map((f) => [f.name, f.column]));
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The explicit tenant filter of a model; row-level security adds its own for tenant admins. */
function tenantCondition(model: AdminModel, tenantId: string | undefined): SQL | undefined {
  if (tenantId === undefined) return undefined;
  if (model.scope === 'members') {
    return sql`exists (select 1 from ${memberships} where ${memberships.userId} = ${users.id} and ${memberships.tenantId} = ${tenantId})`;
  }
  return model.tenantColumn ? eq(model.tenantColumn, tenantId) : undefined;
}

function keyCondition(model: AdminModel, key: readonly unknown[]): SQL | undefined {
  return and(...model.primaryKey.map((f, i) => eq(f.column, key[i])));
}

/**
 * Generic reads and writes over the allow-listed models. The tenant is always passed explicitly: the routes hand
 * a tenant admin's calls a connection confined to their tenant (withTenant), and a superuser's the owner one.
 */
export class AdminModelsRepository {
  async page(db: Db, model: AdminModel, opts: ModelPageOptions): Promise<{ count: number; rows: ModelRow[] }> {
    const pattern = opts.search ? `%${escapeLike(opts.search)}%` : undefined;
    const where = and(
      tenantCondition(model, opts.tenantId),
      pattern ? or(...model.search.map((f) => ilike(f.column, pattern))) : undefined,
    );
    const [total] = await db.select({ n: count() }).from(model.table).where(where);
    const column = opts.ordering.field.column;
    // Newest first keeps empty dates last; the primary key breaks ties so pages never overlap.
    const order = opts.ordering.desc ? sql`${column} desc nulls last` : asc(column);
    const tiebreak = model.primaryKey.map((f) => (opts.ordering.desc ? sql`${f.column} desc` : asc(f.column)));
    const rows = await db
      .select(selection(model))
      .from(model.table)
      .where(where)
      .orderBy(order, ...tiebreak)
      .limit(opts.limit)
      .offset(opts.offset);
    return { count: Number(total?.n ?? 0), rows };
  }

  async find(
    db: Db,
    model: AdminModel,
    key: readonly unknown[],
    tenantId: string | undefined,
  ): Promise<ModelRow | undefined> {
    const [row] = await db
      .select(selection(model))
      .from(model.table)
      .where(and(keyCondition(model, key), tenantCondition(model, tenantId)))
      .limit(1);
    return row;
  }

  async insert(db: Db, model: AdminModel, values: Record<string, unknown>): Promise<ModelRow> {
    const [row] = await db
      .insert(model.table)
      .values(values as never)
      .returning(selection(model));
    return row!;
  }

  async update(
    db: Db,
    model: AdminModel,
    key: readonly unknown[],
    tenantId: string | undefined,
    values: Record<string, unknown>,
  ): Promise<ModelRow | undefined> {
    const [row] = await db
      .update(model.table)
      .set(values as never)
      .where(and(keyCondition(model, key), tenantCondition(model, tenantId)))
      .returning(selection(model));
    return row;
  }

  async remove(db: Db, model: AdminModel, key: readonly unknown[], tenantId: string | undefined): Promise<boolean> {
    const rows = await db
      .delete(model.table)
      .where(and(keyCondition(model, key), tenantCondition(model, tenantId)))
      .returning({ one: sql<number>`1` });
    return rows.length > 0;
  }

  /** Whether the row a reference names exists in the same tenant (a plain foreign key would cross tenants). */
  async referenceExists(db: Db, target: AdminModel, id: unknown, tenantId: string): Promise<boolean> {
    const [row] = await db
      .select({ one: sql<number>`1` })
      .from(target.table)
      .where(and(keyCondition(target, [id]), tenantCondition(target, tenantId)))
      .limit(1);
    return row !== undefined;
  }

  /** A tenant that exists and is not deleted: rows are only ever created in one of those. */
  async liveTenant(db: Db, id: string): Promise<boolean> {
    const [row] = await db
      .select({ id: tenants.id })
      .from(tenants)
      .where(and(eq(tenants.id, id), isNull(tenants.deletedAt)))
      .limit(1);
    return row !== undefined;
  }
}
