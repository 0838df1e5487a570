import { sql } from 'drizzle-orm';
import type { Db } from './client.ts';

declare const tenantScoped: unique symbol;

/**
 * A transaction running as the non-owner role vigie_app with app.tenant_id set: row-level security
 * confines every statement to one tenant. Only `withTenant` makes one, so a repository that asks for a
 * TenantDb cannot be handed the unscoped connection by mistake.
 */
export type TenantDb = Db & { readonly [tenantScoped]: true };

/** A tenant id, checked against the caller's memberships before it is trusted. */
export type TenantId = string & { readonly __brand: 'TenantId' };

export async function withTenant<T>(db: Db, tenantId: TenantId, fn: (tx: TenantDb) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    // One round trip for both: set_config('role', …, true) is SET LOCAL ROLE.
    await tx.execute(sql`select set_config('app.tenant_id', ${tenantId}, true), set_config('role', 'vigie_app', true)`);
    return fn(tx as unknown as TenantDb);
  });
}
