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

/**
 * `fn` in a tenant transaction. `statementTimeoutMs` bounds each of its statements (SET LOCAL statement_timeout: a
 * slow query cannot hold a pooled connection for long); the caller picks it from its request class.
 */
export async function withTenant<T>(
  db: Db,
  tenantId: TenantId,
  fn: (tx: TenantDb) => Promise<T>,
  statementTimeoutMs?: number,
): Promise<T> {
  return db.transaction(async (tx) => {
    // One round trip for all: set_config(…, true) is SET LOCAL (role: SET LOCAL ROLE), undone at the transaction's
    // end, so a transaction-mode pooler hands the server connection on clean.
    const timeout =
      statementTimeoutMs === undefined
        ? sql``
        : sql`, set_config('statement_timeout', ${String(statementTimeoutMs)}, true)`;
    await tx.execute(
      sql`select set_config('app.tenant_id', ${tenantId}, true), set_config('role', 'vigie_app', true)${timeout}`,
    );
    return fn(tx as unknown as TenantDb);
  });
}
