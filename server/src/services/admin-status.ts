import { statfs } from 'node:fs/promises';
import { and, count, desc, eq, isNull, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { rowsOf, type Database, type Db } from '../db/client.ts';
import { taskRuns, tenants, users } from '../db/schema.ts';
import { storageFailure } from '../domain/storage-errors.ts';
import { VERSION } from '../version.ts';
import { processRegistryOf } from './process-registry.ts';
import { ServerLogSink, type LogSinkStats } from './server-logs.ts';
import { SystemSettingsStore } from './system-settings.ts';
import { QUEUE_SCHEMA } from './task-queue.ts';

/** Each part of the status answers within this delay, or is reported down: the page must load during an outage. */
export const PROBE_TIMEOUT_MS = 2000;

export const CVE_UPDATE_TASK = 'vulnerabilities.tasks.update_cve_database';

const DOWN_MESSAGE = 'Indisponible.';
const TIMEOUT_MESSAGE = `Pas de réponse en ${PROBE_TIMEOUT_MS / 1000} s.`;

class ProbeTimeout extends Error {}

/** A part that answers but is not well: its French message is the answer's `error`. */
class ProbeDown extends Error {}

export const HEALTH_MESSAGES = {
  unreachable: 'Base de données indisponible : les données ne peuvent être ni lues ni enregistrées pour le moment.',
  writesFailing:
    'La base de données n’enregistre plus rien (la dernière écriture de ce processus a échoué) : réessayez dans un instant.',
} as const;

/**
 * Whether the database works for this process, for the health check: a real round trip, and the outcome of this
 * process's last heartbeat, a write every few seconds (a database that still reads but can no longer write is
 * down too). undefined when all is well, else why not, in French.
 */
export async function databaseHealth(database: Database): Promise<string | undefined> {
  try {
    await database.ping();
  } catch (err) {
    return storageFailure(err)?.message ?? HEALTH_MESSAGES.unreachable;
  }
  const beat = processRegistryOf(database)?.state;
  if (beat && !beat.ok) return storageFailure(beat.error)?.message ?? HEALTH_MESSAGES.writesFailing;
  return undefined;
}

const num = (v: unknown): number => Number(v ?? 0);

/**
 * The checks behind GET /api/admin/status/. An object, not loose functions, so a test can replace one probe by a
 * failing or hanging one and see the rest of the answer survive.
 */
export const statusProbes = {
  async database(database: Database) {
    const t0 = performance.now();
    await database.ping();
    const latencyMs = Math.round((performance.now() - t0) * 100) / 100;
    const beat = processRegistryOf(database)?.state;
    if (beat && !beat.ok) throw new ProbeDown(HEALTH_MESSAGES.writesFailing);
    const [row] = rowsOf<{ size: unknown }>(
      await database.db.execute(sql`select pg_database_size(current_database()) as size`),
    );
    return { latency_ms: latencyMs, size_bytes: num(row?.size) };
  },

  /** pg-boss's own tables: jobs waiting (created or retry), running, and failed for good in the last 24 h. */
  async jobQueue(database: Database) {
    const [row] = rowsOf<Record<string, unknown>>(
      await database.db.execute(
        sql.raw(`select
          count(*) filter (where state in ('created', 'retry')) as queued,
          count(*) filter (where state = 'active') as active,
          count(*) filter (where state = 'failed' and completed_on > now() - interval '24 hours') as failed
          from ${QUEUE_SCHEMA}.job`),
      ),
    );
    // pg-boss moves finished jobs to its archive after a while; failures there still count.
    const [archived] = rowsOf<Record<string, unknown>>(
      await database.db.execute(
        sql.raw(`select count(*) as failed from ${QUEUE_SCHEMA}.archive
          where state = 'failed' and completed_on > now() - interval '24 hours'`),
      ),
    );
    return {
      queue_depth: num(row?.queued),
      active: num(row?.active),
      failed_last_24h: num(row?.failed) + num(archived?.failed),
    };
  },

  async disk(dir: string) {
    const s = await statfs(dir);
    return { path: dir, free_bytes: s.bavail * s.bsize, total_bytes: s.blocks * s.bsize };
  },

  /** The last successful run of the CVE catalogue update. */
  async cveDatabase(db: Db) {
    const [run] = await db
      .select({ id: taskRuns.id, dateDone: taskRuns.dateDone })
      .from(taskRuns)
      .where(and(eq(taskRuns.taskName, CVE_UPDATE_TASK), eq(taskRuns.status, 'SUCCESS')))
      .orderBy(desc(taskRuns.dateDone))
      .limit(1);
    return { last_update: run?.dateDone?.toISOString() ?? null, last_update_task_id: run?.id ?? null };
  },

  async counts(db: Db) {
    const [t] = await db.select({ n: count() }).from(tenants).where(isNull(tenants.deletedAt));
    const [u] = await db.select({ n: count() }).from(users);
    const [a] = await db.select({ n: count() }).from(users).where(eq(users.isActive, true));
    return { tenants: t?.n ?? 0, users: u?.n ?? 0, active_users: a?.n ?? 0 };
  },

  async maintenanceMode(db: Db) {
    return (await SystemSettingsStore.of(db).get()).maintenance_mode;
  },
};

type Down = { status: 'down'; error: string };
type Probed<T> = ({ status: 'ok' } & T) | Down;

function withTimeout<T>(work: Promise<T>): Promise<T> {
  // A probe that loses the race keeps running; its late failure must not surface as an unhandled rejection.
  work.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProbeTimeout()), PROBE_TIMEOUT_MS);
    timer.unref();
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

async function probe<T extends object>(
  name: string,
  log: FastifyBaseLogger,
  run: () => Promise<T>,
): Promise<Probed<T>> {
  try {
    return { status: 'ok', ...(await withTimeout(Promise.resolve().then(run))) };
  } catch (err) {
    // The details stay in the server's log; the answer only says the part is down.
    log.warn({ err, probe: name }, 'status probe failed');
    const error = err instanceof ProbeTimeout ? TIMEOUT_MESSAGE : err instanceof ProbeDown ? err.message : DOWN_MESSAGE;
    return { status: 'down', error };
  }
}

export interface StatusOptions {
  database: Database;
  /** The data dir (disk space is measured there). */
  dataDir: string;
  /** Whether this process runs job workers. */
  runJobs: boolean;
  log: FastifyBaseLogger;
}

/** The platform's status (docs/api-admin.md "Health and status"); every part probed at once, each bounded. */
export async function systemStatus(opts: StatusOptions) {
  const { database, log } = opts;
  const [db, jobs, disk, cve, counts, maintenance] = await Promise.all([
    probe('database', log, () => statusProbes.database(database)),
    probe('job_queue', log, () => statusProbes.jobQueue(database)),
    probe('disk', log, () => statusProbes.disk(opts.dataDir)),
    probe('cve_database', log, () => statusProbes.cveDatabase(database.db)),
    probe('counts', log, () => statusProbes.counts(database.db)),
    probe('maintenance_mode', log, async () => ({ value: await statusProbes.maintenanceMode(database.db) })),
  ]);
  const parts = { database: db, job_queue: jobs, disk, cve_database: cve, counts };
  const logs: LogSinkStats = ServerLogSink.of(database).stats();
  return {
    status: Object.values(parts).every((p) => p.status === 'ok') ? ('ok' as const) : ('degraded' as const),
    checked_at: new Date().toISOString(),
    version: VERSION,
    uptime_seconds: Math.round(process.uptime()),
    node_version: process.version,
    maintenance_mode: maintenance.status === 'ok' ? maintenance.value : null,
    database: { kind: database.kind, ...db },
    job_queue: { workers: opts.runJobs, ...jobs },
    disk,
    cve_database: cve,
    counts,
    logs,
  };
}
