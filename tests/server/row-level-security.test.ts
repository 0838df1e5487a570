import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../server/src/db/client.ts';
import { freshDatabase, onPostgres } from './helpers.ts';

// Tables without a tenant_id that the application role may still reach: platform data, read-only or global.
const GLOBAL = new Set(['tenants', 'users', 'cves', 'cwes', 'security_policies']);

describe(`row-level security covers every tenant-owned table (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  let database: Database;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ database, drop } = await freshDatabase());
  });
  afterAll(() => drop());

  it('enables row-level security with a tenant policy on each table that has a tenant_id', async () => {
    const { rows } = await database.executeSql(`
      select c.relname as table, c.relrowsecurity as rls,
             (select count(*)::int from pg_policies p where p.schemaname = 'public' and p.tablename = c.relname) as policies
        from pg_class c
        join pg_namespace n on n.oid = c.relnamespace and n.nspname = 'public'
       where c.relkind = 'r'
         and exists (select 1 from information_schema.columns k
                      where k.table_schema = 'public' and k.table_name = c.relname and k.column_name = 'tenant_id')
       order by 1`);
    const tables = rows as { table: string; rls: boolean; policies: number }[];
    // The project tables of migration 0012 are among them.
    expect(tables.map((t) => t.table)).toEqual(expect.arrayContaining(['projects', 'risks', 'project_documents']));
    expect(tables.filter((t) => !t.rls || t.policies === 0).map((t) => t.table)).toEqual([]);
  });

  it('grants the application role nothing on a table without row-level security, except global data', async () => {
    const { rows } = await database.executeSql(`
      select distinct g.table_name as table
        from information_schema.role_table_grants g
        join pg_class c on c.relname = g.table_name
        join pg_namespace n on n.oid = c.relnamespace and n.nspname = 'public'
       where g.grantee = 'vigie_app' and g.table_schema = 'public' and not c.relrowsecurity
       order by 1`);
    const granted = (rows as { table: string }[]).map((r) => r.table);
    expect(granted).toContain('cves'); // the query sees grants at all
    expect(granted.filter((t) => !GLOBAL.has(t))).toEqual([]);
  });
});
