import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_STATEMENT_TIMEOUTS, loadConfig } from '../../server/src/config.ts';
import { rowsOf } from '../../server/src/db/client.ts';
import { STORAGE_MESSAGES, storageFailure } from '../../server/src/domain/storage-errors.ts';
import { createTestApp, onPostgres, signIn, type TestApp } from './helpers.ts';

/**
 * Issue 19: one slow statement cannot hold a pooled connection for long. Each request class has its own statement
 * timeout (SET LOCAL in the tenant transaction): a read past it is cancelled and answered 503 with Retry-After (the
 * client falls back on what it kept), an export's batches get a longer one, and nothing of it outlives the
 * transaction on the pooled connection.
 */
describe.skipIf(!onPostgres)('statement timeouts per request class (PostgreSQL)', () => {
  let t: TestApp;
  let access: string;
  beforeAll(async () => {
    t = await createTestApp({
      runJobs: false,
      statementTimeouts: { read: 300, write: 300, export: 20_000, import: 300_000 },
    });
    ({ access } = await signIn(t.app, 'analyste'));
  });
  afterAll(async () => t?.close());

  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${access}` } });

  /** Holds an exclusive lock on the findings table (every statement reading it waits) until the returned call. */
  async function lockFindings(): Promise<() => Promise<void>> {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = t.database.db.transaction(async (tx) => {
      await tx.execute(sql`lock table vulnerabilities in access exclusive mode`);
      locked();
      await released;
    });
    await isLocked;
    return async () => {
      release();
      await holder;
    };
  }

  it('cancels a read past its timeout: 503 query_timeout with Retry-After, in about the timeout', async () => {
    const unlock = await lockFindings();
    try {
      const t0 = performance.now();
      // The second page is computed on every request (the first is kept under the data version).
      const res = await get('/api/vulnerabilities/vulnerabilities/?page=2&page_size=5');
      const ms = performance.now() - t0;
      expect(res.statusCode, res.body).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.json()).toEqual({ detail: STORAGE_MESSAGES.slow, code: 'query_timeout' });
      expect(ms).toBeLessThan(5000);
    } finally {
      await unlock();
    }
    expect((await get('/api/vulnerabilities/vulnerabilities/?page=2&page_size=5')).statusCode).toBe(200);
  });

  it('lets an export wait longer than a read: it completes once the lock goes', async () => {
    const unlock = await lockFindings();
    const exported = get('/api/vulnerabilities/export/?format=json');
    // Longer than the read timeout: a read would have been cancelled by now.
    await new Promise((resolve) => setTimeout(resolve, 900));
    await unlock();
    const res = await exported;
    expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
    expect(res.json<unknown[]>().length).toBeGreaterThan(0);
  });

  it('leaves no timeout on the pooled connections after the transaction', async () => {
    expect((await get('/api/vulnerabilities/vulnerabilities/?page=2&page_size=5')).statusCode).toBe(200);
    // Every connection of the pool: none kept the request's SET LOCAL.
    const settings = await Promise.all(
      [0, 1, 2, 3].map(() =>
        t.database.db.transaction(async (tx) => {
          const result = await tx.execute(sql`select current_setting('statement_timeout') as v`);
          await new Promise((resolve) => setTimeout(resolve, 20));
          return rowsOf<{ v: string }>(result)[0]!.v;
        }),
      ),
    );
    expect(new Set(settings)).toEqual(new Set(['0']));
  });
});

describe('statement timeout configuration and failure', () => {
  it('reads each class from the environment, with defaults, and refuses nonsense in one line', () => {
    expect(loadConfig({}).statementTimeouts).toEqual(DEFAULT_STATEMENT_TIMEOUTS);
    expect(
      loadConfig({
        VIGIE_DB_READ_TIMEOUT_MS: '2000',
        VIGIE_DB_WRITE_TIMEOUT_MS: '4000',
        VIGIE_DB_EXPORT_TIMEOUT_MS: '90000',
        VIGIE_DB_IMPORT_TIMEOUT_MS: '600000',
      }).statementTimeouts,
    ).toEqual({ read: 2000, write: 4000, export: 90_000, import: 600_000 });
    expect(() => loadConfig({ VIGIE_DB_READ_TIMEOUT_MS: '-1' })).toThrow(
      new ConfigError('VIGIE_DB_READ_TIMEOUT_MS must be a positive integer, got "-1"'),
    );
  });

  it('needs DATABASE_URL beside DATABASE_SESSION_URL, both postgres URLs', () => {
    expect(() => loadConfig({ DATABASE_SESSION_URL: 'postgres://db/vigie' })).toThrow(
      'DATABASE_SESSION_URL needs DATABASE_URL',
    );
    expect(() => loadConfig({ DATABASE_URL: 'postgres://pooler/vigie', DATABASE_SESSION_URL: 'mysql://x' })).toThrow(
      'DATABASE_SESSION_URL must start with postgres',
    );
    expect(
      loadConfig({ DATABASE_URL: 'postgres://pooler/vigie', DATABASE_SESSION_URL: 'postgres://db/vigie' })
        .databaseSessionUrl,
    ).toBe('postgres://db/vigie');
  });

  it('tells a cancelled statement and a pooler that took no more from an unreachable database', () => {
    const cancelled = Object.assign(new Error('canceling statement due to statement timeout'), {
      code: '57014',
      severity: 'ERROR',
    });
    const wrapped = Object.assign(new Error('Failed query: select 1'), { cause: cancelled });
    expect(storageFailure(wrapped)).toMatchObject({ kind: 'slow', message: STORAGE_MESSAGES.slow });
    // PgBouncer's own refusals when its wait ran out or it is full.
    for (const words of ['query_wait_timeout', 'no more connections allowed (max_client_conn)']) {
      const refused = Object.assign(new Error(words), { code: '08P01', severity: 'ERROR' });
      expect(storageFailure(refused), words).toMatchObject({ kind: 'busy', message: STORAGE_MESSAGES.busy });
    }
    const shutdown = Object.assign(new Error('terminating connection due to administrator command'), {
      code: '57P01',
      severity: 'FATAL',
    });
    expect(storageFailure(shutdown)?.kind).toBe('database');
  });
});
