import { sql } from 'drizzle-orm';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_POOL, loadConfig } from '../../server/src/config.ts';
import { STORAGE_MESSAGES, storageFailure } from '../../server/src/domain/storage-errors.ts';
import { createTestApp, onPostgres, signIn, type TestApp } from './helpers.ts';

/**
 * Issue 19, first part: every database connection taken for the whole wait is a crowd, not a fault. The request is
 * answered 503 with Retry-After and a French detail (the client and its service worker then fall back on what they
 * kept), never a 500; the pool's size and wait come from the configuration.
 */
/** Takes `n` pooled connections, each inside a transaction that ran a statement, until the returned call. */
async function holdConnections(t: TestApp, n: number): Promise<() => Promise<void>> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const holders = Array.from({ length: n }, () =>
    t.database.db.transaction(async (tx) => {
      await tx.execute(sql`select 1`);
      await released;
    }),
  );
  // Every connection is held once each holder ran its first statement.
  await new Promise((resolve) => setTimeout(resolve, 100));
  return async () => {
    release();
    await Promise.all(holders);
  };
}

describe.skipIf(!onPostgres)('a busy connection pool (PostgreSQL)', () => {
  let t: TestApp;
  let access: string;
  beforeAll(async () => {
    t = await createTestApp({ runJobs: false, pool: { max: 2, waitMs: 150 } });
    ({ access } = await signIn(t.app, 'analyste'));
  });
  afterAll(async () => t?.close());

  const summary = () =>
    t.app.inject({
      method: 'GET',
      url: '/api/vulnerabilities/summary/',
      headers: { authorization: `Bearer ${access}` },
    });

  it('answers 503 with Retry-After while every connection stays taken, and serves again once one is free', async () => {
    const release = await holdConnections(t, 2);
    const busy = await summary();
    expect(busy.statusCode, busy.body).toBe(503);
    expect(busy.headers['retry-after']).toBe('2');
    expect(busy.json()).toEqual({ detail: STORAGE_MESSAGES.busy, code: 'server_busy' });

    await release();
    const served = await summary();
    expect(served.statusCode, served.body).toBe(200);
  });
});

describe.skipIf(!onPostgres)('reads abandoned by their clients (PostgreSQL)', () => {
  let t: TestApp;
  let access: string;
  let adminAccess: string;
  beforeAll(async () => {
    t = await createTestApp({ runJobs: false, pool: { max: 2, waitMs: 10_000 } });
    ({ access } = await signIn(t.app, 'analyste'));
    ({ access: adminAccess } = await signIn(t.app, 'admin'));
    await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => t?.close());

  const LIST = 'GET /api/vulnerabilities/vulnerabilities/';
  const listHolds = async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/admin/status/connections/',
      headers: { authorization: `Bearer ${adminAccess}` },
    });
    return res.json<{ routes: { route: string; count: number }[] }>().routes.find((r) => r.route === LIST)?.count ?? 0;
  };

  it('skips the database work of reads whose clients left while they waited for a connection', async () => {
    const before = await listHolds();
    const release = await holdConnections(t, 2);
    // Five clients ask for a computed page, then go away while every connection is taken.
    const { port } = t.app.server.address() as AddressInfo;
    const sockets = [0, 1, 2, 3, 4].map((i) => {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => {});
      socket.write(
        `GET /api/vulnerabilities/vulnerabilities/?page=${2 + i}&page_size=5 HTTP/1.1\r\nHost: x\r\n` +
          `Authorization: Bearer ${access}\r\n\r\n`,
      );
      return socket;
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await release();
    // Give the left-behind requests time to run, had they run.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await listHolds()).toBe(before);
    // A client that stays is served, and counted.
    const served = await t.app.inject({
      method: 'GET',
      url: '/api/vulnerabilities/vulnerabilities/?page=2&page_size=5',
      headers: { authorization: `Bearer ${access}` },
    });
    expect(served.statusCode).toBe(200);
    expect(await listHolds()).toBe(before + 1);
  });
});

describe.skipIf(!onPostgres)('who is served first when a connection frees (PostgreSQL)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ runJobs: false, pool: { max: 1, waitMs: 10_000 } });
  });
  afterAll(async () => t?.close());

  it('serves a waiting transaction before single statements that queued earlier, transactions in their order', async () => {
    const release = await holdConnections(t, 1);
    const served: string[] = [];
    const single = (name: string) => t.database.db.execute(sql`select 1`).then(() => served.push(name));
    const transaction = (name: string) =>
      t.database.db.transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        served.push(name);
      });
    // Queued in this order while the only connection is taken: a crowd's sign-in checks, then two requests that
    // were already past theirs and open their tenant transactions.
    const waiting = [
      single('check 1'),
      single('check 2'),
      transaction('work 1'),
      single('check 3'),
      transaction('work 2'),
    ];
    await new Promise((resolve) => setTimeout(resolve, 50));
    await release();
    await Promise.all(waiting);
    expect(served).toEqual(['work 1', 'work 2', 'check 1', 'check 2', 'check 3']);
  });
});

describe('pool configuration and the busy failure', () => {
  it('reads the pool size and wait from the environment, with defaults, and refuses nonsense in one line', () => {
    expect(loadConfig({}).pool).toEqual(DEFAULT_POOL);
    expect(loadConfig({ VIGIE_DB_POOL_MAX: '40', VIGIE_DB_POOL_WAIT_MS: '500' }).pool).toEqual({
      max: 40,
      waitMs: 500,
    });
    expect(() => loadConfig({ VIGIE_DB_POOL_MAX: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ VIGIE_DB_POOL_WAIT_MS: 'vite' })).toThrow(
      'VIGIE_DB_POOL_WAIT_MS must be a positive integer, got "vite"',
    );
  });

  it('tells a full pool from an unreachable database, bare or wrapped by the query builder', () => {
    const waited = new Error('timeout exceeded when trying to connect');
    expect(storageFailure(waited)).toMatchObject({ kind: 'busy', message: STORAGE_MESSAGES.busy });
    const wrapped = Object.assign(new Error('Failed query: select 1'), { cause: waited });
    expect(storageFailure(wrapped)?.kind).toBe('busy');
    const unreachable = Object.assign(new Error('Failed query: select 1'), {
      cause: new Error('Connection terminated due to connection timeout'),
    });
    expect(storageFailure(unreachable)).toMatchObject({ kind: 'database', message: STORAGE_MESSAGES.database });
  });
});
