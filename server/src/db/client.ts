import type { QueryOptions, Results, Transaction } from '@electric-sql/pglite';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import type { Client as PgClient } from 'pg';
import { sql } from 'drizzle-orm';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import {
  DEFAULT_POOL,
  DEFAULT_STATEMENT_TIMEOUTS,
  projectPath,
  type PoolOptions,
  type StatementTimeouts,
} from '../config.ts';
import { schema } from './schema.ts';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/**
 * The one wrapper around the two drivers: the rest of the server sees a Drizzle `Db`
 * and never imports PGlite or pg directly.
 */
export interface Database {
  kind: 'pglite' | 'postgres';
  db: Db;
  /** PostgreSQL: per request class, given to withTenant (PGlite ignores statement_timeout). */
  statementTimeouts: StatementTimeouts;
  /** Cheap round trip used by the health check. Rejects when the database is unreachable. */
  ping(): Promise<void>;
  migrate(): Promise<void>;
  close(): Promise<void>;
  /**
   * Raw SQL for libraries that bring their own queries (the pg-boss job queue): parameterised when `values` is
   * given, else possibly several statements (the last result is returned).
   */
  executeSql(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  /**
   * LISTEN on `channel`: `onPayload` gets every NOTIFY of any process on this database (this one included) once it
   * committed. Resolves once listening; the function it returns stops.
   */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  /** NOTIFY `channel` (delivered to every listener when the caller's statement commits; 8000 bytes at most). */
  notify(channel: string, payload: string): Promise<void>;
  /**
   * `fn(false)` when the listening connection is lost (notices sent from then on are missed), `fn(true)` once it
   * listens to every channel again. PGlite never loses it.
   */
  onListening(fn: (listening: boolean) => void): void;
  /** True while every connection is taken (a request would wait for one). */
  busy(): boolean;
  /** Runs `fn` while no other process on this database runs its own exclusive work (migrations, the first seed). */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
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
  /** PostgreSQL only: the pool's size and wait (config.ts). */
  pool?: PoolOptions | undefined;
  /** PostgreSQL only: a direct URL for LISTEN and advisory locks when databaseUrl is a transaction-mode pooler. */
  sessionUrl?: string | undefined;
  statementTimeouts?: StatementTimeouts | undefined;
}): Promise<Database> {
  const timeouts = opts.statementTimeouts ?? DEFAULT_STATEMENT_TIMEOUTS;
  return opts.databaseUrl
    ? openPostgres(opts.databaseUrl, opts.sessionUrl ?? opts.databaseUrl, opts.pool ?? DEFAULT_POOL, timeouts)
    : openPglite(opts.dataDir, opts.pgliteTemplate, timeouts);
}

/**
 * pg-pool serves its waiters first come, first served. Under a crowd every request first waits its turn for the
 * statement that authenticates it, and a request that then opens a tenant transaction would wait a whole second
 * turn: the slowest answers were those that queued twice. Here a transaction (connect() without a callback:
 * Drizzle's transactions and executeSql) goes ahead of the single statements waiting (pool.query connects with a
 * callback), behind earlier transactions: work already begun finishes first, and none starves, since each
 * transaction follows a statement that was served. It leans on pg-pool's `_pendingQueue`; without one (another
 * version), the order is left as it is.
 */
function finishFirst(Pool: typeof pg.Pool): typeof pg.Pool {
  type Waiter = { beganWork?: boolean };
  return class FinishFirstPool extends Pool {
    override connect(...args: unknown[]): never {
      const result = (super.connect as (...a: unknown[]) => unknown).apply(this, args);
      const queue = (this as unknown as { _pendingQueue?: Waiter[] })._pendingQueue;
      const waiter = Array.isArray(queue) ? queue[queue.length - 1] : undefined;
      // Queued (the pool is full or its idle client goes to the head of the queue): move ahead of single statements.
      if (typeof args[0] !== 'function' && queue && waiter && !waiter.beganWork) {
        waiter.beganWork = true;
        const ahead = queue.findIndex((w) => !w.beganWork);
        if (ahead !== -1 && ahead < queue.length - 1) queue.splice(ahead, 0, queue.pop()!);
      }
      return result as never;
    }
  };
}

/** SQLSTATE of a statement sent to a session inside a failed transaction block. */
const IN_FAILED_TRANSACTION = '25P02';

const inFailedTransaction = (err: unknown) => (err as { code?: unknown }).code === IN_FAILED_TRANSACTION;

async function openPglite(
  dataDir: string | undefined,
  template: Blob | undefined,
  statementTimeouts: StatementTimeouts,
): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const { drizzle } = await import('drizzle-orm/pglite');

  /**
   * PGlite is one session: left inside a failed transaction block, every later statement of the app would fail
   * with « current transaction is aborted » until a restart. A statement of ours meeting that state (outside any
   * transaction of ours: those hold PGlite's lock) ends the block first; it runs again when nothing of it ran.
   */
  class RecoveringPGlite extends PGlite {
    override query<T>(query: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
      return this.#recovering(() => super.query<T>(query, params, options));
    }

    override exec(query: string, options?: QueryOptions): Promise<Results[]> {
      return this.#recovering(() => super.exec(query, options));
    }

    override transaction<T>(callback: (tx: Transaction) => Promise<T>): Promise<T> {
      let entered = false;
      // Retried only when BEGIN itself met the failed block: the callback never ran.
      return this.#recovering(
        () =>
          super.transaction((tx) => {
            entered = true;
            return callback(tx);
          }),
        () => !entered,
      );
    }

    async #recovering<R>(run: () => Promise<R>, mayRetry: () => boolean = () => true): Promise<R> {
      try {
        return await run();
      } catch (err) {
        if (!inFailedTransaction(err)) throw err;
        // Under PGlite's lock, so never inside another caller's transaction; a no-op when no block is open.
        await super.exec('ROLLBACK');
        if (!mayRetry()) throw err;
        return run();
      }
    }
  }

  // undefined dataDir = in-memory, used by tests.
  const client = new RecoveringPGlite({
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
    statementTimeouts,
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
    async listen(channel, onPayload) {
      const stop = await client.listen(channel, onPayload);
      return () => (closed ? Promise.resolve() : stop());
    },
    async notify(channel, payload) {
      await client.query('select pg_notify($1, $2)', [channel, payload]);
    },
    onListening: () => {},
    busy: () => false,
    // One process only ever opens a PGlite folder (the data directory's lock).
    exclusive: (fn) => fn(),
    async executeSql(text, values) {
      if (values && values.length > 0) return client.query<Record<string, unknown>>(text, values);
      // pg-boss sends texts of several statements wrapped in BEGIN … COMMIT (its maintenance, its migrations).
      // When one statement fails the rest is skipped, COMMIT included, and the session stays in the failed block.
      // Inside PGlite's own transaction, its ROLLBACK ends that block under the same lock.
      const results = await client.transaction((tx) => tx.exec(text));
      return { rows: results.at(-1)?.rows ?? [] };
    },
  };
}

async function openPostgres(
  url: string,
  sessionUrl: string,
  poolOptions: PoolOptions,
  statementTimeouts: StatementTimeouts,
): Promise<Database> {
  const { default: pg } = await import('pg');
  const { drizzle } = await import('drizzle-orm/node-postgres');
  // A request waits waitMs at most for a free connection, then is answered 503 (storage-errors.ts: the pool is busy).
  const pool = new (finishFirst(pg.Pool))({
    connectionString: url,
    max: poolOptions.max,
    connectionTimeoutMillis: poolOptions.waitMs,
  });
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
  // LISTEN and session-level advisory locks need a server session of their own: through a transaction-mode pooler
  // (PgBouncer) a pooled connection changes server session between transactions, so these go to sessionUrl.
  const listener = new PgListener(() => new pg.Client({ connectionString: sessionUrl }));
  return {
    kind: 'postgres',
    db,
    statementTimeouts,
    async ping() {
      if (closed) throw new DatabaseError('database closed');
      await db.execute(sql`select 1`);
    },
    migrate: () => migratePg(db, { migrationsFolder }),
    url,
    async executeSql(text, values) {
      if (values && values.length > 0) return pool.query<Record<string, unknown>>(text, values);
      // Several statements may hold BEGIN … COMMIT: a failure in between must not hand the connection back to the
      // pool inside the failed block (every query it then serves would fail until the server drops it).
      const connection = await pool.connect();
      let broken: Error | undefined;
      try {
        const result = await connection.query<Record<string, unknown>>(text);
        // A multi-statement text answers an array of results.
        const last = Array.isArray(result) ? (result.at(-1) as typeof result | undefined) : result;
        return { rows: last?.rows ?? [] };
      } catch (err) {
        await connection.query('ROLLBACK').catch((rollbackError: unknown) => {
          broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        });
        throw err;
      } finally {
        // A connection that cannot even roll back is closed rather than reused.
        connection.release(broken);
      }
    },
    listen: (channel, onPayload) => listener.listen(channel, onPayload),
    onListening: (fn) => listener.onListening(fn),
    busy: () => pool.waitingCount > 0 || (pool.idleCount === 0 && pool.totalCount >= poolOptions.max),
    async exclusive(fn) {
      // A session-level advisory lock, held on a session of its own while `fn` uses the pool.
      const connection = new pg.Client({ connectionString: sessionUrl });
      connection.on('error', () => {});
      await connection.connect();
      try {
        await connection.query('select pg_advisory_lock($1)', [EXCLUSIVE_LOCK]);
        try {
          return await fn();
        } finally {
          await connection.query('select pg_advisory_unlock($1)', [EXCLUSIVE_LOCK]);
        }
      } finally {
        await connection.end().catch(() => {});
      }
    },
    async notify(channel, payload) {
      await pool.query('select pg_notify($1, $2)', [channel, payload]);
    },
    async close() {
      if (closed) return;
      closed = true;
      await listener.close();
      await pool.end();
    },
  };
}

/**
 * One connection of its own for LISTEN (a pooled one would be handed to queries): opened on the first listen,
 * reconnected after a failure with the channels listened again; notifications sent meanwhile are lost, which the
 * users of the bus tolerate (the streams also count unread on connect).
 */
class PgListener {
  private client: PgClient | undefined;
  private connecting: Promise<PgClient> | undefined;
  private readonly handlers = new Map<string, Set<(payload: string) => void>>();
  private readonly watchers = new Set<(listening: boolean) => void>();
  private closed = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(private readonly connect: () => PgClient) {}

  async listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> {
    let set = this.handlers.get(channel);
    const first = !set;
    if (!set) this.handlers.set(channel, (set = new Set()));
    set.add(onPayload);
    const client = await this.open();
    if (first) await client.query(`listen ${quoteIdent(channel)}`);
    return async () => {
      set.delete(onPayload);
      if (set.size > 0 || this.handlers.get(channel) !== set) return;
      this.handlers.delete(channel);
      if (this.client && !this.closed) await this.client.query(`unlisten ${quoteIdent(channel)}`).catch(() => {});
    };
  }

  onListening(fn: (listening: boolean) => void): void {
    this.watchers.add(fn);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.client ?? (await this.connecting?.catch(() => undefined));
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private open(): Promise<PgClient> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      const client = this.connect();
      client.on('notification', (msg) => {
        for (const handler of this.handlers.get(msg.channel) ?? []) handler(msg.payload ?? '');
      });
      client.on('error', () => this.lost(client));
      client.on('end', () => this.lost(client));
      try {
        await client.connect();
      } finally {
        this.connecting = undefined;
      }
      this.client = client;
      return client;
    })();
    return this.connecting;
  }

  /** The connection went away: connect again (after a pause) and listen to every channel again. */
  private lost(client: PgClient): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    for (const fn of this.watchers) fn(false);
    const again = (delay: number) => {
      this.retry = setTimeout(() => {
        if (this.closed) return;
        this.open()
          .then(async (c) => {
            for (const channel of this.handlers.keys()) await c.query(`listen ${quoteIdent(channel)}`);
            if (this.client === c) for (const fn of this.watchers) fn(true);
          })
          .catch(() => again(Math.min(delay * 2, 30_000)));
      }, delay);
      this.retry.unref();
    };
    again(1000);
  }
}

/** The advisory lock key of exclusive(): 'vigie' in ASCII, unlikely to meet another application's. */
const EXCLUSIVE_LOCK = 0x7669676965;

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

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
