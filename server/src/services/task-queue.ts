import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import PgBoss from 'pg-boss';
import type { Database } from '../db/client.ts';
import { publicReason } from '../domain/storage-errors.ts';
import { isScheduled, toTaskRunView } from '../presenters/task.ts';
import { serverProcessRepo } from '../repositories/server-processes.ts';
import { taskRunReads, taskRunWrites, type TaskRunRow } from '../repositories/task-runs.ts';
import { notifierOf } from './notifier.ts';
import type { ProcessRegistry } from './process-registry.ts';
import {
  FINAL_TASK_STATUSES,
  UnknownTaskError,
  type JobQueue,
  type LaunchOptions,
  type TaskContext,
  type TaskDefinition,
  type TaskOutcome,
  type TaskRunView,
} from '../tasks/types.ts';
import { isUuid } from '../lib/uuid.ts';

/**
 * The queue of the app open on a database. Fastify decorations stay inside the app plugin's context, so code
 * holding the root instance (tests, CLI commands) reaches app.jobs through its Database instead.
 */
const queuesByDatabase = new WeakMap<Database, TaskQueue>();

export function jobQueueOf(database: Database): JobQueue | undefined {
  return queuesByDatabase.get(database);
}

/** pg-boss keeps its tables in this schema (created by migration 0008_job_queue). */
export const QUEUE_SCHEMA = 'pgboss';

const DEFAULT_RETRY_LIMIT = 2;
const DEFAULT_EXPIRE_SECONDS = 3600;
/** meta.error of a run whose process died while executing it. */
export const INTERRUPTED_MESSAGE = 'Interrompue : le processus qui l’exécutait s’est arrêté.';

/** Keys of meta the queue owns; a task's progress() cannot overwrite them. */
const QUEUE_META_KEYS = new Set(['attempts', 'start_time', 'revoked_by', 'reason', 'duration', 'error']);

export interface TaskQueueOptions {
  database: Database;
  /** Handed to every run (TaskContext.filesDir). */
  filesDir: string;
  log: FastifyBaseLogger;
  tasks: readonly TaskDefinition[];
  /** Run workers and schedules in this process; false only enqueues. */
  runJobs: boolean;
  /** This process in server_processes: the owner written on every run it starts, whose heartbeat drives recovery. */
  registry: ProcessRegistry;
  /** How often an idle worker asks for a job launched by another process (launches here wake it at once). */
  pollIntervalMs?: number;
  /** How often a running job checks whether another process revoked it. */
  revokeCheckMs?: number;
  /** Minimum gap between two progress writes of one run. */
  progressThrottleMs?: number;
}

interface JobData {
  args: Record<string, unknown>;
  tenantId: string | null;
  requestedBy: number | null;
  trigger: string;
}

type AbortKind = 'revoked' | 'shutdown' | 'expired';

/** The reason a run's signal was aborted by the queue. */
class TaskAbort extends Error {
  constructor(readonly kind: AbortKind) {
    super(`task ${kind}`);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function jobData(raw: unknown): JobData {
  const d = isRecord(raw) ? raw : {};
  return {
    args: isRecord(d.args) ? d.args : {},
    tenantId: typeof d.tenantId === 'string' ? d.tenantId : null,
    requestedBy: typeof d.requestedBy === 'number' ? d.requestedBy : null,
    // A job pg-boss created from a schedule carries the data given to schedule(); anything else came from launch().
    trigger: typeof d.trigger === 'string' ? d.trigger : 'schedule',
  };
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;
const failedAfter = (attempts: number) => `Échec après ${attempts} tentative${attempts > 1 ? 's' : ''}`;

/**
 * Coalesces a run's progress reports into at most one write per throttle window; the last report is always
 * written (by the timer, or folded into the run's final write by take()).
 */
class ProgressWriter {
  private pending: Record<string, unknown> | null = null;
  private lastWrite = 0;
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly throttleMs: number,
    private readonly write: (patch: Record<string, unknown>) => Promise<void>,
  ) {}

  report(percent: number, meta: Record<string, unknown> | undefined): Promise<void> {
    if (this.closed) return Promise.resolve();
    const extra = Object.fromEntries(Object.entries(meta ?? {}).filter(([k]) => !QUEUE_META_KEYS.has(k)));
    const progress = Number.isFinite(percent) ? Math.min(100, Math.max(0, Math.round(percent))) : 0;
    this.pending = { ...this.pending, ...extra, progress };
    const wait = this.lastWrite + this.throttleMs - Date.now();
    if (wait <= 0) return this.flush();
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, wait);
    return Promise.resolve();
  }

  private flush(): Promise<void> {
    const patch = this.pending;
    if (!patch || this.closed) return this.chain;
    this.pending = null;
    this.lastWrite = Date.now();
    this.chain = this.chain.then(() => this.write(patch));
    return this.chain;
  }

  /** Stops writing and hands back what was not written yet, once in-flight writes are done. */
  async take(): Promise<Record<string, unknown>> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.chain;
    const rest = this.pending ?? {};
    this.pending = null;
    return rest;
  }
}

/**
 * The job queue behind app.jobs: pg-boss on the app's own database does the queuing, locking (SKIP LOCKED: a job
 * runs in one process), retries, expiry and cron schedules; task_runs carries what the product shows (spec §4 status,
 * spec §3 meta). Workers are our own fetch loops, so every query they start is awaited and close() can drain them.
 */
export class TaskQueue implements JobQueue {
  readonly tasks: readonly TaskDefinition[];
  private readonly byName: Map<string, TaskDefinition>;
  private readonly database: Database;
  private readonly log: FastifyBaseLogger;
  private readonly filesDir: string;
  private readonly runJobs: boolean;
  private readonly registry: ProcessRegistry;
  private readonly pollIntervalMs: number;
  private readonly revokeCheckMs: number;
  private readonly progressThrottleMs: number;
  private readonly boss: PgBoss;
  /** Runs executing in this process, by task id. */
  private readonly running = new Map<string, AbortController>();
  /** Idle workers by queue name, waiting to be woken. */
  private readonly sleepers = new Map<string, Set<() => void>>();
  private readonly loops: Promise<void>[] = [];
  /** pg-boss queries not answered yet, drained before the database may close. */
  private readonly inflight = new Set<Promise<unknown>>();
  /** Queues known to exist in pg-boss. */
  private readonly queues = new Set<string>();
  private stopping = false;
  private bossStarted = false;
  /** The recovery pass under way (start and heartbeats never run two at once). */
  private recovering: Promise<void> | undefined;

  constructor(opts: TaskQueueOptions) {
    this.tasks = opts.tasks;
    this.byName = new Map(opts.tasks.map((t) => [t.name, t]));
    this.database = opts.database;
    this.filesDir = opts.filesDir;
    this.log = opts.log;
    this.runJobs = opts.runJobs;
    this.registry = opts.registry;
    this.pollIntervalMs = opts.pollIntervalMs ?? 2000;
    this.revokeCheckMs = opts.revokeCheckMs ?? 1000;
    this.progressThrottleMs = opts.progressThrottleMs ?? 500;
    const database = opts.database;
    this.boss = new PgBoss({
      // One adapter for both drivers: PGlite has a single connection, and on PostgreSQL pg-boss shares the
      // app's pool instead of opening ten more connections per process.
      db: { executeSql: (text: string, values?: unknown[]) => this.track(database.executeSql(text, values)) },
      schema: QUEUE_SCHEMA,
      // Maintenance (expiring the jobs of a crashed process) and the cron clock only where jobs run.
      supervise: opts.runJobs,
      schedule: opts.runJobs,
    });
    // pg-boss reports background failures (maintenance, cron) as events; an unheard 'error' would crash.
    this.boss.on('error', (err) => this.log.error({ err }, 'job queue error'));
  }

  find(taskName: string): TaskDefinition | undefined {
    return this.byName.get(taskName);
  }

  async start(): Promise<void> {
    queuesByDatabase.set(this.database, this);
    await this.boss.start();
    this.bossStarted = true;
    for (const q of await this.boss.getQueues()) this.queues.add(q.name);
    if (!this.runJobs) return;
    // Before any worker: what a dead process left running is settled first (a backup it left RUNNING would
    // otherwise block every restore until its job expired).
    await this.recoverOrphans();
    this.registry.onBeat(() => this.recoverOrphans());
    await this.registerSchedules();
    for (const def of this.tasks) {
      for (let i = 0; i < Math.max(1, def.concurrency ?? 1); i++) this.loops.push(this.workLoop(def));
    }
  }

  /** Idempotent: every process with workers writes the same schedules; pg-boss fires each cron once. */
  private async registerSchedules(): Promise<void> {
    const wanted = this.tasks.filter(isScheduled);
    for (const def of this.tasks) {
      if (def.schedule && !isScheduled(def)) this.log.warn({ task: def.name }, 'tenant task schedule ignored');
    }
    for (const def of wanted) {
      const data: JobData = { args: {}, tenantId: null, requestedBy: null, trigger: 'schedule' };
      await this.ensureQueue(def);
      await this.boss.schedule(def.name, def.schedule.cron, data, { tz: 'UTC', ...this.jobOptions(def) });
    }
    // A schedule whose task no longer exists would enqueue jobs nobody runs.
    const names = new Set(wanted.map((d) => d.name));
    for (const s of await this.boss.getSchedules()) {
      if (!names.has(s.name)) await this.boss.unschedule(s.name);
    }
  }

  /**
   * pg-boss needs a queue (a partition of its job table, ~25 ms to create) before a send or a schedule. Created on
   * first use, so an app that never launches a task pays nothing; fetching from a missing queue just finds nothing.
   */
  private async ensureQueue(def: TaskDefinition): Promise<void> {
    if (this.queues.has(def.name)) return;
    await this.boss.createQueue(def.name, { name: def.name, ...this.jobOptions(def) });
    this.queues.add(def.name);
  }

  private jobOptions(def: TaskDefinition) {
    return {
      retryLimit: def.retryLimit ?? DEFAULT_RETRY_LIMIT,
      expireInSeconds: def.expireInSeconds ?? DEFAULT_EXPIRE_SECONDS,
    };
  }

  /**
   * Close: revoke nothing, but abort the runs executing here (their job goes back to pg-boss for a retry, or
   * FAILURE when none remains), stop the workers and wait for every query already sent.
   */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    if (queuesByDatabase.get(this.database) === this) queuesByDatabase.delete(this.database);
    for (const controller of this.running.values()) controller.abort(new TaskAbort('shutdown'));
    for (const set of this.sleepers.values()) for (const wake of set) wake();
    await Promise.allSettled([...this.loops, this.recovering]);
    if (this.bossStarted) {
      await this.boss.stop({ graceful: false, close: false, wait: true }).catch((err: unknown) => {
        this.log.error({ err }, 'job queue stop failed');
      });
    }
    await Promise.allSettled([...this.inflight]);
  }

  async launch(taskName: string, args: Record<string, unknown>, opts: LaunchOptions): Promise<TaskRunView> {
    const def = this.byName.get(taskName);
    if (!def) throw new UnknownTaskError(taskName);
    if (def.scope === 'tenant' && !opts.tenantId) throw new Error(`task ${taskName} runs inside a tenant`);
    if (this.stopping) throw new Error('job queue stopped');
    const data: JobData = {
      args,
      tenantId: def.scope === 'tenant' ? opts.tenantId : null,
      requestedBy: opts.requestedBy,
      trigger: opts.trigger ?? 'user',
    };
    // The row exists before the job, so a worker never meets a job without its run.
    const id = randomUUID();
    const row = await taskRunWrites.insert(this.database.db, { id, taskName, ...data });
    try {
      await this.ensureQueue(def);
      await this.boss.send(taskName, data, { id, ...this.jobOptions(def) });
    } catch (err) {
      await taskRunWrites.failToQueue(this.database.db, id, publicReason(err)).catch(() => {});
      throw err;
    }
    this.wake(taskName);
    return this.view(row);
  }

  async cancel(taskId: string, opts: { by: string; reason?: string | undefined }): Promise<TaskRunView | null> {
    if (!isUuid(taskId)) return null;
    const row = await taskRunWrites.revoke(this.database.db, taskId, opts.by, opts.reason ?? null);
    if (!row) return null;
    // A pending job is never handed out now; a running one stops here at once, elsewhere at its next check.
    await this.boss.cancel(row.taskName, taskId).catch((err: unknown) => this.log.error({ err }, 'job cancel failed'));
    this.running.get(taskId)?.abort(new TaskAbort('revoked'));
    return this.view(row);
  }

  async get(taskId: string): Promise<TaskRunView | null> {
    if (!isUuid(taskId)) return null;
    const row = await taskRunReads.byId(this.database.db, taskId);
    return row ? this.view(row) : null;
  }

  async waitFor(taskId: string, timeoutMs = 30_000): Promise<TaskRunView> {
    const deadline = Date.now() + timeoutMs;
    let pause = 20;
    for (;;) {
      const run = await this.get(taskId);
      if (!run) throw new Error(`unknown task run ${taskId}`);
      if (FINAL_TASK_STATUSES.includes(run.status)) return run;
      if (Date.now() >= deadline) throw new Error(`task run ${taskId} still ${run.status} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, Math.min(pause, Math.max(1, deadline - Date.now()))));
      pause = Math.min(250, pause * 2);
    }
  }

  view(row: TaskRunRow): TaskRunView {
    return toTaskRunView(row, this.byName.get(row.taskName));
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.inflight.add(p);
    p.finally(() => this.inflight.delete(p)).catch(() => {});
    return p;
  }

  /** Wakes one idle worker of this queue in this process (a job launched here starts without waiting a poll). */
  private wake(queue: string): void {
    const first = this.sleepers.get(queue)?.values().next();
    if (first && !first.done) first.value();
  }

  private sleep(queue: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let set = this.sleepers.get(queue);
      if (!set) this.sleepers.set(queue, (set = new Set()));
      const wake = () => {
        clearTimeout(timer);
        set.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      set.add(wake);
    });
  }

  private async workLoop(def: TaskDefinition): Promise<void> {
    while (!this.stopping) {
      let job: PgBoss.JobWithMetadata<unknown> | undefined;
      try {
        [job] = await this.boss.fetch<unknown>(def.name, { batchSize: 1, includeMetadata: true });
      } catch (err) {
        this.log.error({ err, task: def.name }, 'job fetch failed');
      }
      if (job) {
        await this.execute(def, job).catch((err: unknown) => {
          this.log.error({ err, task: def.name, taskId: job.id }, 'job execution failed');
        });
        continue;
      }
      if (!this.stopping) await this.sleep(def.name, this.pollIntervalMs);
    }
  }

  private async execute(def: TaskDefinition, job: PgBoss.JobWithMetadata<unknown>): Promise<void> {
    const db = this.database.db;
    const id = job.id;
    const data = jobData(job.data);
    if (this.stopping) {
      // Fetched while closing: hand it back for another process (or this one after a restart).
      await this.boss.fail(def.name, id, { message: 'arrêt du serveur avant exécution' });
      return;
    }
    const attempt = job.retryCount + 1;
    const lastAttempt = job.retryCount >= job.retryLimit;
    await taskRunWrites.ensure(db, { id, taskName: def.name, ...data });
    const startedAt = Date.now();
    const started = await taskRunWrites.start(db, id, attempt, new Date(startedAt).toISOString(), this.registry.id);
    if (!started) {
      // Revoked between the fetch and now.
      await this.boss.cancel(def.name, id);
      return;
    }

    const controller = new AbortController();
    this.running.set(id, controller);
    const progress = new ProgressWriter(this.progressThrottleMs, (patch) =>
      taskRunWrites.patchMeta(db, id, attempt, patch).catch((err: unknown) => {
        this.log.warn({ err, taskId: id }, 'progress write failed');
      }),
    );
    // A revoke from another process only shows in the row.
    let checking = false;
    const revokeCheck = setInterval(() => {
      if (checking) return;
      checking = true;
      taskRunReads
        .statusOf(db, id)
        .then((status) => {
          if (status === 'REVOKED' || status === undefined) controller.abort(new TaskAbort('revoked'));
        })
        .catch(() => {})
        .finally(() => {
          checking = false;
        });
    }, this.revokeCheckMs);
    const expireInSeconds = Number(job.expireInSeconds) || DEFAULT_EXPIRE_SECONDS;
    // A little before pg-boss's own expiry (maintenance), so the failure and its retry are ours, not a race.
    const expiry = setTimeout(
      () => controller.abort(new TaskAbort('expired')),
      Math.max(1000, expireInSeconds * 1000 - 1000),
    );

    const ctx: TaskContext = {
      taskId: id,
      tenantId: def.scope === 'tenant' ? data.tenantId : null,
      args: data.args,
      requestedBy: data.requestedBy,
      database: this.database,
      filesDir: this.filesDir,
      log: this.log.child({ task: def.name, taskId: id }),
      signal: controller.signal,
      progress: (percent, meta) => progress.report(percent, meta),
    };

    let outcome: TaskOutcome | undefined;
    let failure: unknown;
    try {
      outcome = await untilAborted(
        Promise.resolve().then(() => def.run(ctx)),
        controller.signal,
      );
    } catch (err) {
      failure = err;
    } finally {
      clearInterval(revokeCheck);
      clearTimeout(expiry);
      this.running.delete(id);
    }
    const rest = await progress.take();
    const duration = seconds(Date.now() - startedAt);
    const aborted = controller.signal.aborted ? (controller.signal.reason as TaskAbort) : undefined;

    if (aborted?.kind === 'revoked') {
      // cancel() wrote REVOKED; make sure pg-boss will not retry it either.
      await this.boss.cancel(def.name, id);
      return;
    }
    if (!aborted && outcome) {
      const meta = Object.fromEntries(Object.entries(outcome.meta ?? {}).filter(([k]) => !QUEUE_META_KEYS.has(k)));
      const done = await taskRunWrites.finish(db, id, attempt, {
        status: 'SUCCESS',
        result: outcome.result,
        meta: { ...rest, progress: 100, ...meta, duration, error: null },
      });
      // Not ours any more (recovered by another process while this one was silent): its job is theirs too.
      if (done) await this.boss.complete(def.name, id);
      return;
    }

    if (!aborted) ctx.log.warn({ err: failure }, 'task failed');
    const error =
      aborted?.kind === 'shutdown'
        ? "Interrompue par l'arrêt du serveur"
        : aborted?.kind === 'expired'
          ? `Délai d'exécution dépassé (${expireInSeconds} s)`
          : publicReason(failure);
    const finished = await taskRunWrites.finish(db, id, attempt, {
      status: lastAttempt ? 'FAILURE' : 'PENDING',
      result: lastAttempt ? failedAfter(attempt) : null,
      meta: { ...rest, duration, error },
    });
    if (!finished) return;
    // pg-boss decides: retry state while attempts remain (we just said PENDING), failed otherwise.
    await this.boss.fail(def.name, id, { message: error });
    if (finished.status === 'FAILURE') {
      // Best effort: taskFailed logs its own errors and never throws.
      await notifierOf(this.database, this.log).taskFailed({
        id,
        label: def.label,
        tenantId: finished.tenantId,
        requestedBy: data.requestedBy,
        attempts: attempt,
        error,
      });
    }
    if (!lastAttempt && !this.stopping) this.wake(def.name);
  }

  /**
   * Recovers the runs that processes now dead left STARTED (killed, crashed, cut off): run at start and after each
   * heartbeat where jobs run, so nothing waits for pg-boss's expiry (an hour by default).
   */
  recoverOrphans(): Promise<void> {
    this.recovering ??= this.recoverPass().finally(() => {
      this.recovering = undefined;
    });
    return this.recovering;
  }

  private async recoverPass(): Promise<void> {
    if (this.stopping) return;
    const db = this.database.db;
    const staleSeconds = this.registry.staleSeconds;
    const dead = await serverProcessRepo.markStale(db, staleSeconds);
    if (dead.length > 0) this.log.warn({ processes: dead }, 'processes found dead (no heartbeat)');
    const orphans = await taskRunReads.orphaned(db, {
      self: this.registry.id,
      staleSeconds,
      // One process at a time on PGlite: a run naming no process and older than this one's start is a dead one's.
      unownedBefore: this.database.kind === 'pglite' ? (this.registry.startedAt ?? null) : null,
    });
    for (const run of orphans) {
      if (this.stopping) return;
      await this.recoverRun(run).catch((err: unknown) => {
        this.log.error({ err, task: run.taskName, taskId: run.id }, 'recovery of a dead process run failed');
      });
    }
  }

  /**
   * One orphaned run: claimed (one recoverer wins), PENDING again when pg-boss will retry its job or FAILURE, its
   * task's recover hook run, then its job failed so pg-boss retries it or closes it at once.
   */
  private async recoverRun(run: TaskRunRow): Promise<void> {
    const def = this.byName.get(run.taskName);
    const job = await this.boss.getJobById<unknown>(run.taskName, run.id);
    const active = job?.state === 'active';
    const willRetry = active ? job.retryCount < job.retryLimit : job?.state === 'retry' || job?.state === 'created';
    const attempts = Math.max(1, Number(run.meta.attempts) || 1);
    const recovered = await taskRunWrites.recover(
      this.database.db,
      { id: run.id, processId: run.processId },
      {
        status: willRetry ? 'PENDING' : 'FAILURE',
        result: willRetry ? null : failedAfter(attempts),
        error: INTERRUPTED_MESSAGE,
      },
    );
    if (!recovered) return;
    const log = this.log.child({ task: run.taskName, taskId: run.id });
    log.warn({ deadProcess: run.processId, retry: willRetry }, 'run of a dead process recovered');
    if (def?.recover) {
      await def
        .recover({
          taskId: run.id,
          tenantId: run.tenantId,
          args: run.args,
          database: this.database,
          filesDir: this.filesDir,
          log,
          final: !willRetry,
          reason: INTERRUPTED_MESSAGE,
        })
        .catch((err: unknown) => log.error({ err }, 'task recover hook failed'));
    }
    // After the hook: a retry must not start before what the lost attempt left is put right.
    if (active) await this.boss.fail(run.taskName, run.id, { message: INTERRUPTED_MESSAGE });
    if (willRetry) {
      if (!this.stopping) this.wake(run.taskName);
      return;
    }
    await notifierOf(this.database, this.log).taskFailed({
      id: run.id,
      label: def?.label ?? run.taskName,
      tenantId: run.tenantId,
      requestedBy: run.requestedBy,
      attempts,
      error: INTERRUPTED_MESSAGE,
    });
  }
}

/** The task's promise, or a rejection as soon as the signal aborts (a task that ignores it is left behind). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  promise.catch(() => {});
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
