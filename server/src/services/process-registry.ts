import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/client.ts';
import type { ProcessRole } from '../db/schema.ts';
import { ConfigError } from '../config.ts';
import { dataVolumeOf } from '../lib/data-dir.ts';
import { serverProcessRepo } from '../repositories/server-processes.ts';

/**
 * The registry of the process open on a database. Fastify decorations stay inside the app plugin's context, so code
 * holding the root instance (the server, the CLI, tests) reaches it through its Database.
 */
const registriesByDatabase = new WeakMap<Database, ProcessRegistry>();

export function processRegistryOf(database: Database): ProcessRegistry | undefined {
  return registriesByDatabase.get(database);
}

export const DEFAULT_HEARTBEAT_MS = 5000;
/** A process silent for this many heartbeats is dead. */
const STALE_AFTER_BEATS = 4;
/** The staleness where no registry runs (a command line tool). */
export const DEFAULT_STALE_SECONDS = (DEFAULT_HEARTBEAT_MS * STALE_AFTER_BEATS) / 1000;
const MIN_HEARTBEAT_MS = 50;

/** VIGIE_HEARTBEAT_INTERVAL_MS (milliseconds, default 5000): how often a process says it is alive. */
export function heartbeatIntervalOf(env: NodeJS.ProcessEnv = process.env): number {
  const raw = Number(env.VIGIE_HEARTBEAT_INTERVAL_MS);
  return Number.isFinite(raw) && raw >= MIN_HEARTBEAT_MS ? Math.round(raw) : DEFAULT_HEARTBEAT_MS;
}

export interface ProcessRegistryOptions {
  database: Database;
  log: FastifyBaseLogger;
  /** 'all' (web and jobs), 'web' or 'worker'. */
  role?: ProcessRole;
  /** Default: VIGIE_HEARTBEAT_INTERVAL_MS, else 5 s. */
  heartbeatMs?: number;
  /** The data directory this process keeps its files in; on PostgreSQL every live process must share it. */
  filesDir?: string;
}

/** Refused at start: the live processes of this database keep their files in another data directory. */
export class DataVolumeMismatchError extends ConfigError {
  constructor(dir: string, other: { hostname: string; pid: number; role: string }) {
    super(
      `data directory ${dir} is not the one the other Vigie processes on this database use (${other.role} process ` +
        `${other.pid} on ${other.hostname}): files stored by one (uploaded reports, documents, backups) must be ` +
        'readable by all; give every process the same VIGIE_DATA_DIR (a shared volume across machines)',
    );
  }
}

/** The outcome of the last heartbeat: a process whose writes fail is not healthy, whatever a read says. */
export interface BeatState {
  ok: boolean;
  at: Date;
  error?: unknown;
}

type BeatListener = () => Promise<void>;

/**
 * This process in server_processes (docs/api-vulnerabilities.md "Background tasks"): its row is written at start,
 * its heartbeat every `heartbeatMs`, and it is marked stopped on a clean close. A process is dead once marked
 * stopped or silent for four heartbeats; what it owned is recovered by the processes that run jobs (TaskQueue).
 * On PGlite a lock file lets only one process open the data, so at start every other row is dead.
 */
export class ProcessRegistry {
  readonly id = randomUUID();
  readonly role: ProcessRole;
  readonly heartbeatMs: number;
  private readonly database: Database;
  private readonly log: FastifyBaseLogger;
  private readonly filesDir: string | undefined;
  private readonly listeners: BeatListener[] = [];
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  private started = false;
  private stopped = false;
  private lastBeat: BeatState | undefined;
  /** When this process's row was written (the database's clock). */
  startedAt: Date | undefined;

  constructor(opts: ProcessRegistryOptions) {
    this.database = opts.database;
    this.log = opts.log;
    this.role = opts.role ?? 'all';
    this.heartbeatMs = opts.heartbeatMs ?? heartbeatIntervalOf();
    this.filesDir = opts.filesDir;
  }

  /** Heartbeats older than this are a dead process's. */
  get staleSeconds(): number {
    return (this.heartbeatMs * STALE_AFTER_BEATS) / 1000;
  }

  /** The last heartbeat's outcome (undefined before the first). */
  get state(): BeatState | undefined {
    return this.lastBeat;
  }

  /** Runs after every successful heartbeat, one at a time (the job queue recovers dead processes' work there). */
  onBeat(listener: BeatListener): void {
    this.listeners.push(listener);
  }

  async start(): Promise<void> {
    if (this.started) return;
    const db = this.database.db;
    const dataVolume = this.filesDir ? dataVolumeOf(this.filesDir) : null;
    if (dataVolume && this.database.kind !== 'pglite') {
      const other = await serverProcessRepo.otherVolume(db, dataVolume, this.staleSeconds);
      if (other) throw new DataVolumeMismatchError(this.filesDir!, other);
    }
    this.startedAt = await serverProcessRepo.register(db, {
      id: this.id,
      role: this.role,
      hostname: hostname(),
      pid: process.pid,
      dataVolume,
    });
    this.started = true;
    registriesByDatabase.set(this.database, this);
    this.lastBeat = { ok: true, at: new Date() };
    if (this.database.kind === 'pglite') await serverProcessRepo.markOthersStopped(db, this.id);
    await serverProcessRepo.deleteOldStopped(db);
    this.timer = setInterval(() => void this.tick(), this.heartbeatMs);
    this.timer.unref();
  }

  /**
   * Writes the heartbeat now: a real write, so a database that reads but cannot write is reported. Rejects when
   * it fails (the health check answers 503 then).
   */
  async beat(): Promise<void> {
    if (!this.started || this.stopped) throw new Error('process registry not running');
    try {
      if (!(await serverProcessRepo.beat(this.database.db, this.id))) {
        // Found dead during a pause longer than the staleness (its runs were recovered): alive again from now.
        this.log.warn({ processId: this.id }, 'this process had been marked stopped by another; registered again');
        await serverProcessRepo.revive(this.database.db, this.id);
      }
      this.lastBeat = { ok: true, at: new Date() };
    } catch (err) {
      this.lastBeat = { ok: false, at: new Date(), error: err };
      throw err;
    }
  }

  private tick(): void {
    if (this.beating || this.stopped) return;
    this.beating = (async () => {
      try {
        await this.beat();
      } catch (err) {
        this.log.warn({ err }, 'heartbeat failed');
        return;
      }
      for (const listener of this.listeners) {
        if (this.stopped) return;
        await listener().catch((err: unknown) => this.log.error({ err }, 'heartbeat task failed'));
      }
    })().finally(() => {
      this.beating = undefined;
    });
  }

  /** Stops beating and marks the row stopped (a clean close: its work was handed back already). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    await this.beating;
    if (registriesByDatabase.get(this.database) === this) registriesByDatabase.delete(this.database);
    if (!this.started) return;
    await serverProcessRepo.markStopped(this.database.db, this.id).catch((err: unknown) => {
      this.log.warn({ err }, 'could not mark this process stopped');
    });
  }
}
