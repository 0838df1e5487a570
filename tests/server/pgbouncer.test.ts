import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, rowsOf, type Database } from '../../server/src/db/client.ts';
import { withTenant, type TenantId } from '../../server/src/db/tenant-scope.ts';
import { STORAGE_MESSAGES, storageFailure } from '../../server/src/domain/storage-errors.ts';
import { pgBouncerPath, startPgBouncer, type PgBouncer } from '../support/pgbouncer.ts';
import { freshDatabase, onPostgres } from './helpers.ts';
import { seededTenants } from './support/world.ts';

/**
 * Issue 19: many processes share a few server connections through PgBouncer in transaction mode, where a client's
 * next transaction may run on a session another client used last. Tenant scoping holds because withTenant sets
 * everything with SET LOCAL (set_config(…, true)), undone when the transaction ends; LISTEN and the advisory lock go
 * to the server directly (sessionUrl); a transaction PgBouncer kept waiting past query_wait_timeout is a busy 503.
 * Here PgBouncer holds 2 server connections for an app pool of 20.
 */
describe.skipIf(!onPostgres || !pgBouncerPath())('PostgreSQL behind PgBouncer in transaction mode', () => {
  let bouncer: PgBouncer;
  let database: Database;
  let drop: () => Promise<void>;
  /** The same database on the server itself, as its owner. */
  let direct: pg.Client;
  let directUrl: string;
  let server: URL;
  let name: string;
  let tenantIds: { acme: TenantId; horizon: TenantId };
  /** Per tenant, as the owner sees them. */
  const expected = new Map<string, { assets: number; vulnerabilities: number }>();
  let defaultTimeout: string;

  beforeAll(async () => {
    const fresh = await freshDatabase();
    drop = fresh.drop;
    name = new URL(fresh.url!).pathname.slice(1);
    // Under `npm run test:pgbouncer` TEST_DATABASE_URL is itself a PgBouncer: this suite's own goes to the server.
    server = new URL(process.env.TEST_DATABASE_SESSION_URL || process.env.TEST_DATABASE_URL!);
    server.pathname = `/${name}`;
    directUrl = server.toString();
    const started = await startPgBouncer({
      upstreamHost: server.hostname,
      upstreamPort: Number(server.port || 5432),
      poolSize: 2,
      maxClientConn: 60,
    });
    if (!started) throw new Error('PgBouncer went missing');
    bouncer = started;
    database = await openDatabase({
      databaseUrl: bouncer.url(name),
      sessionUrl: directUrl,
      pool: { max: 20, waitMs: 10_000 },
    });
    direct = new pg.Client({ connectionString: directUrl });
    await direct.connect();
    const seeded = await seededTenants(database.db);
    tenantIds = { acme: seeded.acme as TenantId, horizon: seeded.horizon as TenantId };
    const counts = await direct.query<{ tenant: string; assets: number; vulnerabilities: number }>(
      `select t.id as tenant,
              (select count(*)::int from assets a where a.tenant_id = t.id) as assets,
              (select count(*)::int from vulnerabilities v where v.tenant_id = t.id) as vulnerabilities
         from tenants t`,
    );
    for (const r of counts.rows) expected.set(r.tenant, { assets: r.assets, vulnerabilities: r.vulnerabilities });
    defaultTimeout = (await direct.query<{ v: string }>(`select current_setting('statement_timeout') as v`)).rows[0]!.v;
  });

  afterAll(async () => {
    await direct?.end().catch(() => {});
    await database?.close();
    await bouncer?.stop();
    await drop?.();
  });

  it('seeds two tenants that hold different rows', () => {
    const acme = expected.get(tenantIds.acme)!;
    const horizon = expected.get(tenantIds.horizon)!;
    expect(acme.vulnerabilities).toBeGreaterThan(0);
    expect(horizon.vulnerabilities).toBeGreaterThan(0);
    expect(acme).not.toEqual(horizon);
  });

  it('keeps each of many interleaved tenant transactions on its own rows over 2 shared server connections', async () => {
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    // Committed, rolled back and cancelled transactions of both tenants, each statement a round trip apart.
    const runs = Array.from({ length: 120 }, async (_, i) => {
      const tenant = i % 2 === 0 ? tenantIds.acme : tenantIds.horizon;
      const timeoutMs = i % 3 === 0 ? undefined : 4000 + (i % 5) * 1000;
      const outcome = i % 10 === 7 ? 'rollback' : i % 10 === 9 ? 'cancelled' : 'commit';
      try {
        return await withTenant(
          database.db,
          tenant,
          async (tx) => {
            const first = rowsOf<Seen['first']>(
              await tx.execute(sql`select current_setting('app.tenant_id') as tenant, current_user as user,
                                          current_setting('role') as role,
                                          current_setting('statement_timeout') as timeout, pg_backend_pid() as pid`),
            )[0]!;
            await sleep(i % 4);
            const counts = rowsOf<Seen['counts']>(
              await tx.execute(sql`select (select count(*)::int from assets) as assets,
                                          (select count(*)::int from vulnerabilities) as vulnerabilities`),
            )[0]!;
            const seen: Seen = { tenant, timeoutMs, first, counts };
            if (outcome === 'rollback') throw new Rollback(seen);
            if (outcome === 'cancelled') {
              // Past its own timeout: PostgreSQL cancels the statement and the transaction is rolled back.
              await tx.execute(sql`select set_config('statement_timeout', '20', true)`);
              await tx.execute(sql`select pg_sleep(0.2)`);
            }
            return seen;
          },
          timeoutMs,
        );
      } catch (err) {
        if (err instanceof Rollback) return err.seen;
        if (outcome === 'cancelled' && sqlStateOf(err) === QUERY_CANCELED) return undefined;
        throw err;
      }
    });
    const seen = (await Promise.all(runs)).filter((s) => s !== undefined);
    expect(seen.length).toBe(108);
    for (const s of seen) {
      expect(s.first).toMatchObject({
        tenant: s.tenant,
        user: 'vigie_app',
        role: 'vigie_app',
        timeout: s.timeoutMs === undefined ? defaultTimeout : `${s.timeoutMs / 1000}s`,
      });
      expect(s.counts).toEqual(expected.get(s.tenant));
    }
    // Every transaction ran on one of PgBouncer's two server sessions, each serving both tenants in turn.
    const pids = new Set(seen.map((s) => s.first.pid));
    expect(pids.size).toBeLessThanOrEqual(2);
    for (const pid of pids) {
      expect(new Set(seen.filter((s) => s.first.pid === pid).map((s) => s.tenant)).size).toBe(2);
    }
  });

  it('leaves nothing of a tenant transaction on the shared server sessions', async () => {
    // Two transactions held at once take both server connections.
    let arrived = 0;
    let bothIn!: () => void;
    const together = new Promise<void>((resolve) => (bothIn = resolve));
    const sessions = await Promise.all(
      [0, 1].map(() =>
        database.db.transaction(async (tx) => {
          const row = rowsOf<{ user: string; role: string; tenant: string | null; timeout: string; pid: number }>(
            await tx.execute(sql`select current_user as user, current_setting('role') as role,
                                        current_setting('app.tenant_id', true) as tenant,
                                        current_setting('statement_timeout') as timeout, pg_backend_pid() as pid`),
          )[0]!;
          if (++arrived === 2) bothIn();
          await together;
          return row;
        }),
      ),
    );
    expect(new Set(sessions.map((s) => s.pid)).size).toBe(2);
    for (const s of sessions) {
      // app.tenant_id was defined by a SET LOCAL in this session: it reads '' once its transaction ended.
      expect({ ...s, pid: 0, tenant: s.tenant ?? '' }).toEqual({
        user: 'postgres',
        role: 'none',
        tenant: '',
        timeout: defaultTimeout,
        pid: 0,
      });
    }
    // The owner outside any transaction, too.
    const plain = rowsOf<{ user: string; n: number }>(
      await database.db.execute(sql`select current_user as user, (select count(*)::int from tenants) as n`),
    )[0]!;
    expect(plain).toEqual({ user: 'postgres', n: expected.size });
  });

  it('delivers a NOTIFY sent through PgBouncer to the LISTEN held on the server itself', async () => {
    const channel = 'vigie_pgbouncer_test';
    const received: string[] = [];
    let got!: () => void;
    const arrived = new Promise<void>((resolve) => (got = resolve));
    const stop = await database.listen(channel, (payload) => {
      received.push(payload);
      if (received.length === 2) got();
    });
    try {
      await database.notify(channel, 'plain');
      await withTenant(database.db, tenantIds.acme, (tx) =>
        tx.execute(sql`select pg_notify(${channel}, 'in a tenant')`),
      );
      await arrived;
      expect(received).toEqual(['plain', 'in a tenant']);
      // The listening session is the server's own, not one of PgBouncer's.
      const listeners = await direct.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity where datname = current_database() and query ilike 'listen%'`,
      );
      expect(listeners.rows[0]!.n).toBe(1);
    } finally {
      await stop();
    }
  });

  it('runs exclusive work one process at a time, the advisory lock held on a server session', async () => {
    const spans: [number, number][] = [];
    const advisoryLocks = () =>
      direct
        .query<{ n: number }>(
          `select count(*)::int as n from pg_locks
            where locktype = 'advisory' and granted and database = (select oid from pg_database where datname = current_database())`,
        )
        .then((r) => r.rows[0]!.n);
    const work = () =>
      database.exclusive(async () => {
        const start = performance.now();
        const held = await advisoryLocks();
        await database.db.execute(sql`select pg_sleep(0.1)`);
        spans.push([start, performance.now()]);
        return held;
      });
    const held = await Promise.all([work(), work()]);
    expect(held).toEqual([1, 1]);
    const [a, b] = spans.sort((x, y) => x[0] - y[0]);
    expect(b![0]).toBeGreaterThanOrEqual(a![1]);
    expect(await advisoryLocks()).toBe(0);
  });

  it('answers a transaction that waited query_wait_timeout for a server connection as busy (503), not a fault', async () => {
    const tight = await startPgBouncer({
      upstreamHost: server.hostname,
      upstreamPort: Number(server.port || 5432),
      poolSize: 1,
      queryWaitTimeoutS: 1,
    });
    const holder = new pg.Client({ connectionString: tight!.url(name) });
    const waiter = new pg.Client({ connectionString: tight!.url(name) });
    // PgBouncer closes the refused client's connection.
    waiter.on('error', () => {});
    try {
      await holder.connect();
      await holder.query('begin');
      await holder.query('select 1'); // holds the one server connection
      await waiter.connect();
      const refused = await waiter.query('select 1').then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(String(refused)).toContain('query_wait_timeout');
      expect(storageFailure(refused)).toMatchObject({ kind: 'busy', message: STORAGE_MESSAGES.busy });
    } finally {
      await holder.end().catch(() => {});
      await waiter.end().catch(() => {});
      await tight!.stop();
    }
  });

  it('shows why nothing is set for the session: a plain SET ROLE through PgBouncer reaches other clients', async () => {
    const client = () => new pg.Client({ connectionString: bouncer.url(name) });
    const careless = client();
    await careless.connect();
    await careless.query('set role vigie_app'); // session-level: stays on the server connection it ran on
    await careless.end();
    // Two other clients holding a transaction each take both server connections: one is the careless one's.
    const others = [client(), client()];
    await Promise.all(others.map((c) => c.connect()));
    try {
      await Promise.all(others.map((c) => c.query('begin')));
      const users = await Promise.all(
        others.map((c) => c.query<{ user: string }>('select current_user as user').then((r) => r.rows[0]!.user)),
      );
      expect(users.sort()).toEqual(['postgres', 'vigie_app']);
      // Undo it for the sessions' next users.
      await Promise.all(others.map((c) => c.query('reset role').then(() => c.query('commit'))));
    } finally {
      await Promise.all(others.map((c) => c.end().catch(() => {})));
    }
  });
});

/** What one tenant transaction saw. */
interface Seen {
  tenant: TenantId;
  timeoutMs: number | undefined;
  first: { tenant: string; user: string; role: string; timeout: string; pid: number };
  counts: { assets: number; vulnerabilities: number };
}

/** Ends a tenant transaction with a rollback, carrying what it saw. */
class Rollback extends Error {
  constructor(readonly seen: Seen) {
    super('rollback');
  }
}

/** SQLSTATE of a statement cancelled by statement_timeout. */
const QUERY_CANCELED = '57014';

/** The SQLSTATE behind an error (Drizzle wraps the driver's error in `cause`). */
function sqlStateOf(err: unknown): string | undefined {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (typeof e.code === 'string') return e.code;
  }
  return undefined;
}
