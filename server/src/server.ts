import { createServer } from 'node:net';
import closeWithGrace from 'close-with-grace';
import { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import pino from 'pino';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { DatabaseError, openDatabase, redactUrl, type Database } from './db/client.ts';
import type { ProcessRole } from './db/schema.ts';
import { formatAccounts, isSeeded, seedDemoData } from './db/seed.ts';
import { ensureWritableDir, lockDataDir } from './lib/data-dir.ts';
import { TokenService } from './lib/tokens.ts';
import { SecretBox } from './lib/secret-box.ts';
import { buildApp } from './build-app.ts';
import { jobQueueOf } from './services/task-queue.ts';
import { VERSION } from './version.ts';
import { ServerLogSink } from './services/server-logs.ts';
import { KEYS_CHANNEL, KeyStore, keySettingsOf } from './services/signing-keys.ts';

/** Connections the kernel holds for the process to accept (Node's default is 511). */
const LISTEN_BACKLOG = 4096;

function fail(message: string): never {
  console.error(`vigie: ${message}`);
  process.exit(1);
}

/** Fail fast with one clear line rather than after the database is opened. */
function assertPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new ConfigError(
          err.code === 'EADDRINUSE'
            ? `port ${port} on ${host} is already in use; stop the other process or set PORT`
            : `cannot listen on ${host}:${port} (${err.code ?? err.message})`,
        ),
      ),
    );
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

/**
 * Standard output at LOG_LEVEL, and the queryable log store (docs/api-admin.md "Logs"), which takes debug and up
 * and keeps what the system setting log_level asks for.
 */
function createLogger(level: string, sink: ServerLogSink): FastifyBaseLogger {
  const values = pino.levels.values;
  const floor = Math.min(values[level] ?? values.info!, values.debug!);
  return pino(
    { level: pino.levels.labels[floor] ?? 'debug', redact: ['req.headers.authorization', 'req.headers.cookie'] },
    pino.multistream([
      ...(level === 'silent' ? [] : [{ level: level as pino.Level, stream: process.stdout }]),
      { level: 'debug' as const, stream: sink.stream },
    ]),
  );
}

export interface Started {
  app: FastifyInstance;
  /** Where it listens; undefined for a worker, which serves nothing. */
  url: string | undefined;
  close: () => Promise<void>;
}

/**
 * Opens the database, migrates, seeds on first start, and listens (unless a worker) and works (unless web). The
 * role (docs/SCALING.md): `all` serves and runs the background jobs (npm start, the only role on PGlite); with
 * PostgreSQL, `web` only serves and `worker` only runs jobs, as many of each as needed.
 */
export async function start(config: Config, role: ProcessRole = 'all'): Promise<Started> {
  if (role !== 'all' && !config.databaseUrl) {
    throw new ConfigError(
      'separate web and worker processes need PostgreSQL (DATABASE_URL); npm start serves and works in one process',
    );
  }
  ensureWritableDir(config.dataDir);
  if (role !== 'worker') await assertPortFree(config.host, config.port);
  const unlock = config.databaseUrl ? () => {} : lockDataDir(config.dataDir);
  let database: Database | undefined;
  try {
    database = await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.databaseUrl ? undefined : `${config.dataDir}/pglite`,
      pool: config.pool,
      sessionUrl: config.databaseSessionUrl,
      statementTimeouts: config.statementTimeouts,
    });
    const db = database;
    // Several processes may start at once on one PostgreSQL database: one migrates and seeds, the others wait.
    const { firstStart, keys } = await db.exclusive(async () => {
      await db.migrate();
      const seedNow = !(await isSeeded(db.db));
      if (seedNow) {
        const accounts = await seedDemoData(db.db, { password: config.demoPassword });
        console.log(formatAccounts(accounts, config.demoPassword !== undefined));
      }
      return { firstStart: seedNow, keys: await KeyStore.open(db.db, keySettingsOf(config)) };
    });
    const tokens = new TokenService(
      () => keys.ring('access'),
      () => keys.reloadSoon(),
    );
    const secretBox = new SecretBox(() => keys.ring('seal'));
    // Keys held in the database may rotate under a running process (`vigie keys rotate`): it says so on the
    // database, and every minute the keys are read again anyway.
    await database.listen(KEYS_CHANNEL, () => void keys.reload().catch(() => {}));
    const keyReload = setInterval(() => void keys.reload().catch(() => {}), 60_000);
    keyReload.unref();
    const app = await buildApp(
      {
        database,
        tokens,
        secretBox,
        staticDir: config.staticDir,
        filesDir: config.dataDir,
        runJobs: role !== 'web',
        role,
        heavyPerTenant: config.heavyPerTenant,
        keptSignIn: config.keptSignIn,
        maxInFlight: config.maxInFlight,
      },
      {
        loggerInstance: createLogger(config.logLevel, ServerLogSink.of(database)),
        logController: new LogController({ disableRequestLogging: config.logLevel !== 'debug' }),
        trustProxy: config.trustProxy,
      },
      async () => {
        clearInterval(keyReload);
        await db.close();
        unlock();
      },
    );
    // A crowd opens its connections at once: past Node's default queue of 511 the kernel drops them and clients wait
    // seconds to retry; a longer queue lets the request gate answer them (503) instead (the kernel caps it at
    // net.core.somaxconn).
    if (role !== 'worker') await app.listen({ host: config.host, port: config.port, backlog: LISTEN_BACKLOG });
    if (firstStart) {
      // The seed holds the CVEs the demo points at; the rest of the shipped catalogue loads as a background task,
      // so the first start stays quick and the task manager shows the run.
      const run = await jobQueueOf(database)?.launch(
        'vulnerabilities.tasks.update_cve_database',
        {},
        { tenantId: null, requestedBy: null, trigger: 'system' },
      );
      if (run) console.log(`Importing the shipped CVE catalogue in the background (task ${run.id}).`);
    }
    const address = role === 'worker' ? null : app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const url = role === 'worker' ? undefined : `http://${config.host}:${port}`;
    return { app, url, close: () => app.close() };
  } catch (err) {
    await database?.close().catch(() => {});
    unlock();
    throw err;
  }
}

export async function main(role: ProcessRole = 'all'): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    fail((err as Error).message);
  }
  let started: Started;
  const t0 = performance.now();
  try {
    started = await start(config, role);
  } catch (err) {
    // KeyMismatchError is a ConfigError: one line, before anything is served.
    if (err instanceof ConfigError || err instanceof DatabaseError) fail(err.message);
    fail(`failed to start: ${(err as Error).message}`);
  }
  const where = config.databaseUrl ? `PostgreSQL ${redactUrl(config.databaseUrl)}` : `PGlite in ${config.dataDir}`;
  const ready = `${where}; ready in ${Math.round(performance.now() - t0)} ms`;
  if (started.url === undefined) {
    console.log(`Vigie ${VERSION} worker running background jobs (${ready})`);
  } else {
    const jobs = role === 'web' ? ', no background jobs' : '';
    console.log(`Vigie ${VERSION} listening on ${started.url} (${ready}${jobs})`);
    console.log(`API reference: ${started.url}/api/docs (OpenAPI document: ${started.url}/api/openapi.json)`);
  }

  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) started.app.log.error({ err }, 'closing after an error');
    else console.log(`vigie: ${signal ?? 'shutdown'} received, closing`);
    await started.close();
  });
}

if (process.argv[1] === import.meta.filename) {
  await main();
}
