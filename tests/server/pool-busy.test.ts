import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_POOL, loadConfig } from '../../server/src/config.ts';
import { STORAGE_MESSAGES, storageFailure } from '../../server/src/domain/storage-errors.ts';
import { createTestApp, onPostgres, signIn, type TestApp } from './helpers.ts';

/**
 * Issue 19, first part: every database connection taken for the whole wait is a crowd, not a fault. The request is
 * answered 503 with Retry-After and a French detail (the client and its service worker then fall back on what they
 * kept), never a 500; the pool's size and wait come from the configuration.
 */
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
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const holders = [0, 1].map(() =>
      t.database.db.transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        await released;
      }),
    );
    // Both connections are held once each holder ran its first statement.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const busy = await summary();
    expect(busy.statusCode, busy.body).toBe(503);
    expect(busy.headers['retry-after']).toBe('2');
    expect(busy.json()).toEqual({ detail: STORAGE_MESSAGES.busy, code: 'server_busy' });

    release();
    await Promise.all(holders);
    const served = await summary();
    expect(served.statusCode, served.body).toBe(200);
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
