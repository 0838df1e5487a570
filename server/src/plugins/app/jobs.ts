import fp from 'fastify-plugin';
import type { ProcessRole } from '../../db/schema.ts';
import { ProcessRegistry } from '../../services/process-registry.ts';
import { TaskQueue } from '../../services/task-queue.ts';
import type { JobQueue, TaskDefinition } from '../../tasks/types.ts';

declare module 'fastify' {
  interface FastifyInstance {
    jobs: JobQueue;
  }
}

export interface JobsOptions {
  tasks: readonly TaskDefinition[];
  runJobs: boolean;
  /** This process's role in server_processes (default: 'all' with job workers, 'web' without). */
  role?: ProcessRole;
  /** Heartbeat interval (default: VIGIE_HEARTBEAT_INTERVAL_MS, else 5 s). */
  heartbeatMs?: number;
}

/**
 * Background tasks (pg-boss on the app's database, see services/task-queue.ts) and this process's entry in the
 * registry of processes (services/process-registry.ts). Both start once the app is ready — the registry first, so
 * every run names its process, and with workers the work of dead processes is recovered before any job is taken —
 * and stop on close, before the database closes: runs executing here are aborted and handed back to pg-boss
 * (retried while attempts remain, else FAILURE), then the process is marked stopped. With runJobs false the process
 * only enqueues.
 */
export default fp<JobsOptions>(
  async (app, opts) => {
    const log = app.log.child({ module: 'jobs' });
    const registry = new ProcessRegistry({
      database: app.database,
      log,
      role: opts.role ?? (opts.runJobs ? 'all' : 'web'),
      filesDir: app.filesDir,
      ...(opts.heartbeatMs !== undefined ? { heartbeatMs: opts.heartbeatMs } : {}),
    });
    const queue = new TaskQueue({
      database: app.database,
      filesDir: app.filesDir,
      log,
      tasks: opts.tasks,
      runJobs: opts.runJobs,
      registry,
    });
    app.decorate('jobs', queue satisfies JobQueue);
    const stop = async () => {
      await queue.stop();
      await registry.stop();
    };
    app.addHook('onReady', async () => {
      try {
        await registry.start();
        await queue.start();
      } catch (err) {
        // ready() fails, and nobody will close this instance: release the timers pg-boss may have set.
        await stop();
        throw err;
      }
    });
    app.addHook('onClose', stop);
  },
  { name: 'jobs', dependencies: ['database'] },
);
