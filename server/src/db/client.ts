import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { projectPath } from '../config.ts';
import { schema } from './schema.ts';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/**
 * The one wrapper around the two drivers: the rest of the server sees a Drizzle `Db`
 * and never imports PGlite or pg directly.
 */
export interface Database {
  kind: 'pglite' | 'postgres';
  db: Db;
  /** Cheap round trip used by the health check. Rejects when the database is unreachable. */
  ping(): Promise<void>;
  migrate(): Promise<void>;
  close(): Promise<void>;
  /**
   * Raw SQL for libraries that bring their own queries (the pg-boss job queue): parameterised when `values` is
   * given, else possibly several statements (the last result is returned).
   */
  executeSql(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  /** PostgreSQL only: the connection string, for a library that needs its own connections. */
  url?: string;
  /** PGlite only: the whole cluster as a tarball (test templates now, backups later). */
  dumpDataDir?: () => Promise<Blob>;
}

export class DatabaseError extends Error {}

const migrationsFolder = projectPath('server', 'migrations');

export async function openDatabase(opts: {
  databaseUrl?: string | undefined;
  dataDir?: string | undefined;
  /** PGlite only: start from a dumpDataDir() tarball instead of an empty cluster (much faster than initdb). */
  pgliteTemplate?: Blob | undefined;
}): Promise<Database> {
  return opts.databaseUrl ? openPostgres(opts.databaseUrl) : openPglite(opts.dataDir, opts.pgliteTemplate);
}

async function openPglite(dataDir: string | undefined, template: Blob | undefined): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const { drizzle } = await import('drizzle-orm/pglite');
  // undefined dataDir = in-memory, used by tests.
  const client = new PGlite({
    ...(dataDir ? { dataDir } : {}),
    ...(template ? { loadDataDir: template } : {}),
    extensions: { pg_trgm },
  });
  try {
    await client.waitReady;
  } catch (err) {
    throw new DatabaseError(`cannot open the embedded database in ${dataDir}: ${(err as Error).message}`);
  }
  const db = drizzle({ client, schema });
  let closed = false;
  return {
    kind: 'pglite',
    db,
    async ping() {
      if (closed) throw new DatabaseError('database closed');
      await db.execute(sql`select 1`);
    },
    migrate: () => migratePglite(db, { migrationsFolder }),
    async close() {
      if (closed) return;
      closed = true;
      await client.close();
    },
    dumpDataDir: () => client.dumpDataDir('none'),
    async executeSql(text, values) {
      if (values && values.length > 0) return client.query<Record<string, unknown>>(text, values);
      const results = await client.exec(text);
      return { rows: results.at(-1)?.rows ?? [] };
    },
  };
}

async function openPostgres(url: string): Promise<Database> {
  const { default: pg } = await import('pg');
  const { drizzle } = await import('drizzle-orm/node-postgres');
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 5000 });
  // An idle client losing its connection must not crash the process; the health check reports it.
  pool.on('error', () => {});
  try {
    const c = await pool.connect();
    c.release();
  } catch (err) {
    await pool.end().catch(() => {});
    throw new DatabaseError(`cannot reach PostgreSQL at ${redactUrl(url)}: ${(err as Error).message}`);
  }
  const db = drizzle({ client: pool, schema });
  let closed = false;
  return {
    kind: 'postgres',
    db,
    async ping() {
      if (closed) throw new DatabaseError('database closed');
      await db.execute(sql`select 1`);
    },
    migrate: () => migratePg(db, { migrationsFolder }),
    url,
    async executeSql(text, values) {
      const result = await pool.query<Record<string, unknown>>(text, values);
      // A multi-statement text answers an array of results.
      const last = Array.isArray(result) ? (result.at(-1) as typeof result | undefined) : result;
      return { rows: last?.rows ?? [] };
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}

/** Hide the password of a connection string before it reaches a log line. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'the configured DATABASE_URL';
  }
}

/** Rows of a raw execute(): both drivers answer {rows}, which Drizzle types per driver (here: unknown). */
export function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}
