import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import pg from 'pg';
import {
  DEFAULT_HEAVY_PER_TENANT,
  DEFAULT_MAX_IN_FLIGHT,
  type PoolOptions,
  type StatementTimeouts,
} from '../../server/src/config.ts';
import { ConcurrencyBudget } from '../../server/src/plugins/app/tenant-budget.ts';
import { openDatabase, type Database } from '../../server/src/db/client.ts';
import { seedDemoData } from '../../server/src/db/seed.ts';
import { securityPolicies } from '../../server/src/db/schema.ts';
import { TokenService } from '../../server/src/lib/tokens.ts';
import { SecretBox } from '../../server/src/lib/secret-box.ts';
import { buildApp } from '../../server/src/build-app.ts';
import type { JobQueue, TaskDefinition } from '../../server/src/tasks/types.ts';
import { jobQueueOf } from '../../server/src/services/task-queue.ts';
import { RequestGate } from '../../server/src/plugins/app/request-gate.ts';
import { keptSignInOf, type KeptSignIn, type KeptSignInMode } from '../../server/src/services/kept-sign-in.ts';

export const TEST_PASSWORD = 'correct horse battery staple';
export const TEST_SECRET = 'test-secret-that-is-long-enough-for-hs256-0123456789';

/** Which backend the server suites run on: PGlite unless TEST_DATABASE_URL names a PostgreSQL server. */
export const onPostgres = !!process.env.TEST_DATABASE_URL;

/**
 * The demo seed, with sign-in limits raised so suites that sign in often are not throttled;
 * the rate-limit tests set their own limit.
 */
async function seedTestData(database: Database): Promise<void> {
  await seedDemoData(database.db, { password: TEST_PASSWORD });
  await database.db.update(securityPolicies).set({ loginAttemptsPerMinute: 1000 });
}

let pgliteTemplate: Promise<Blob> | undefined;

/** One migrated and seeded PGlite cluster per test worker; each test loads a copy (~0.6 s instead of ~3 s). */
function seededPgliteTemplate(): Promise<Blob> {
  pgliteTemplate ??= (async () => {
    const database = await openDatabase({});
    await database.migrate();
    await seedTestData(database);
    const dump = await database.dumpDataDir!();
    await database.close();
    return dump;
  })();
  return pgliteTemplate;
}

/**
 * A fresh, migrated database holding the demo seed (password TEST_PASSWORD): a copy of an
 * in-memory PGlite template, or a throwaway database on the PostgreSQL server of TEST_DATABASE_URL.
 */
export async function freshDatabase(
  options: { pool?: PoolOptions | undefined; statementTimeouts?: StatementTimeouts | undefined } = {},
): Promise<{ database: Database; url?: string; drop: () => Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    const database = await openDatabase({
      pgliteTemplate: await seededPgliteTemplate(),
      statementTimeouts: options.statementTimeouts,
    });
    return { database, drop: () => database.close() };
  }
  const name = `vigie_t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  // Through a transaction-mode pooler (PgBouncer), TEST_DATABASE_SESSION_URL names the server itself.
  const sessionUrl = process.env.TEST_DATABASE_SESSION_URL ? new URL(process.env.TEST_DATABASE_SESSION_URL) : undefined;
  if (sessionUrl) sessionUrl.pathname = `/${name}`;
  const database = await openDatabase({
    databaseUrl: url.toString(),
    sessionUrl: sessionUrl?.toString(),
    pool: options.pool,
    statementTimeouts: options.statementTimeouts,
  });
  await database.migrate();
  await seedTestData(database);
  return {
    database,
    url: url.toString(),
    async drop() {
      await database.close();
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export interface TestApp {
  app: FastifyInstance;
  database: Database;
  tokens: TokenService;
  staticDir: string;
  filesDir: string;
  /** The app's job queue (app.jobs stays inside the encapsulated app plugin). */
  jobs: JobQueue;
  /** Heavy requests in progress per tenant (plugins/app/tenant-budget.ts). */
  heavyBudget: ConcurrencyBudget;
  /** Signed-in states kept in memory (services/kept-sign-in.ts): its counts say what was served from memory. */
  keptSignIn: KeptSignIn;
  /** API requests in progress and those turned away (plugins/app/request-gate.ts). */
  requestGate: RequestGate;
  close: () => Promise<void>;
}

/** The real app on a fresh seeded database, with a tiny fake build as its static dir. */
export async function createTestApp(
  opts: {
    serverOptions?: FastifyServerOptions;
    withBuild?: boolean;
    /** Serve this directory (the real build, for browser tests) instead of a tiny fake one. */
    appDir?: string;
    /** Background tasks the queue knows (default: the product's). */
    tasks?: readonly TaskDefinition[];
    /** Run job workers in this instance (default true). */
    runJobs?: boolean;
    /** PostgreSQL only: the connection pool's size and wait. */
    pool?: PoolOptions;
    /** PostgreSQL only: statement timeouts per request class. */
    statementTimeouts?: StatementTimeouts;
    /** Heavy requests one tenant may run at once. */
    heavyPerTenant?: number;
    /** When a request's signed-in state may come from memory (default: the product's, 'busy'). */
    keptSignIn?: KeptSignInMode;
    /** API requests served at once (default: the product's). */
    maxInFlight?: number;
  } = {},
): Promise<TestApp> {
  const { database, drop } = await freshDatabase({ pool: opts.pool, statementTimeouts: opts.statementTimeouts });
  const staticDir = mkdtempSync(path.join(tmpdir(), 'vigie-static-'));
  if (opts.withBuild !== false && !opts.appDir) {
    writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html><html lang="fr"><title>Vigie</title></html>');
    mkdirSync(path.join(staticDir, 'assets'));
    writeFileSync(path.join(staticDir, 'assets', 'app-abc123.js'), 'console.log(1)');
    writeFileSync(path.join(staticDir, 'sw.js'), 'self.x=1');
  }
  const heavyBudget = new ConcurrencyBudget(opts.heavyPerTenant ?? DEFAULT_HEAVY_PER_TENANT);
  const keptSignIn = keptSignInOf(database, opts.keptSignIn ?? 'busy');
  const requestGate = new RequestGate(opts.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT);
  const tokens = new TokenService(TEST_SECRET);
  const secretBox = new SecretBox('test-encryption-key');
  const filesDir = mkdtempSync(path.join(tmpdir(), 'vigie-files-'));
  const app = await buildApp(
    {
      database,
      tokens,
      secretBox,
      staticDir: opts.appDir ?? staticDir,
      filesDir,
      ...(opts.tasks ? { tasks: opts.tasks } : {}),
      ...(opts.runJobs !== undefined ? { runJobs: opts.runJobs } : {}),
      heavyBudget,
      keptSignIn,
      maxInFlight: requestGate,
    },
    opts.serverOptions,
  );
  return {
    app,
    database,
    tokens,
    staticDir,
    filesDir,
    jobs: jobQueueOf(database)!,
    heavyBudget,
    keptSignIn,
    requestGate,
    async close() {
      await app.close();
      await drop().catch(() => {});
      rmSync(staticDir, { recursive: true, force: true });
      rmSync(filesDir, { recursive: true, force: true });
    },
  };
}

export async function signIn(app: FastifyInstance, username: string, password = TEST_PASSWORD) {
  const res = await app.inject({ method: 'POST', url: '/api/token/', payload: { username, password } });
  if (res.statusCode !== 200) throw new Error(`sign-in of ${username} failed: ${res.statusCode} ${res.body}`);
  return res.json<{ access: string; refresh: string; expires_in: number; user: Record<string, unknown> }>();
}
