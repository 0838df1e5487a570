import fp from 'fastify-plugin';
import { TaskQueue } from '../../services/task-queue.ts';
import type { JobQueue, TaskDefinition } from '../../tasks/types.ts';

declare module 'fastify' {
  interface FastifyInstance {
    jobs: JobQueue;
  }
}

/**
 * Background tasks (pg-boss on the app's database, see services/task-queue.ts). The queue starts once the app is
 * ready and stops on close, before the database closes: runs executing here are aborted and handed back to
 * pg-boss (retried while attempts remain, else FAILURE). With runJobs false the process only enqueues.
 */
export default fp<{ tasks: readonly TaskDefinition[]; runJobs: boolean }>(
  async (app, opts) => {
    const queue = new TaskQueue({
      database: app.database,
      filesDir: app.filesDir,
      log: app.log.child({ module: 'jobs' }),
      tasks: opts.tasks,
      runJobs: opts.runJobs,
    });
    app.decorate('jobs', queue satisfies JobQueue);
    app.addHook('onReady', async () => {
      try {
        await queue.start();
      } catch (err) {
        // ready() fails, and nobody will close this instance: release the timers pg-boss may have set.
        await queue.stop();
        throw err;
      }
    });
    app.addHook('onClose', async () => queue.stop());
  },
  { name: 'jobs', dependencies: ['database'] },
);
