import { sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../db/client.ts';
import { PLATFORM_WRITES } from '../db/schema.ts';
import type { TenantDb } from '../db/tenant-scope.ts';
import { SIGNED_IN_CHANNEL, WRITES_CHANNEL } from '../domain/change-channels.ts';

/**
 * The data version of the current tenant (migration 0019): it changes when a write on a table the dashboards read
 * commits, whatever process made it.
 */
export const dataVersionRepo = {
  /** The current tenant's version; with `platform`, platform writes (task runs, CWE names) count too. */
  async current(tx: TenantDb, platform: boolean): Promise<number> {
    const result = await tx.execute(sql`select tenant_data_version(${platform})::float8 as v`);
    return Number(rowsOf<{ v: number }>(result)[0]?.v ?? 0);
  },

  /**
   * A new version for every tenant and the platform (after a restore, which writes with the triggers off), and every
   * process forgets the signed-in states and versions it kept (migration 0023's triggers were off too).
   */
  async bumpAll(db: Db): Promise<void> {
    await db.execute(sql`
      insert into tenant_writes (tenant_id)
      select id from tenants union all select ${PLATFORM_WRITES}::uuid`);
    await db.execute(sql`select pg_notify(${WRITES_CHANNEL}, '*'), pg_notify(${SIGNED_IN_CHANNEL}, '*')`);
  },

  /** Keeps each tenant's newest row only (the version is the largest one). Owner connection. */
  async prune(db: Db): Promise<void> {
    await db.execute(sql`
      delete from tenant_writes w
       using (select tenant_id, max(seq) as top from tenant_writes group by tenant_id) newest
       where w.tenant_id = newest.tenant_id and w.seq < newest.top`);
  },
};
