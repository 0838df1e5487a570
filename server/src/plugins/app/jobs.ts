import fp from 'fastify-plugin';
import type { JobQueue, TaskDefinition } from '../../tasks/types.ts';

declare module 'fastify' {
  interface FastifyInstance {
    jobs: JobQueue;
  }
}

const notBuilt = (): never => {
  throw new Error('job queue not built yet');
};

// Not built yet: pg-boss job queue (issue 6, background tasks).
export default fp<{ tasks: readonly TaskDefinition[]; runJobs: boolean }>(
  async (app) => {
    app.decorate('jobs', { launch: notBuilt, cancel: notBuilt, get: notBuilt, waitFor: notBuilt } satisfies JobQueue);
  },
  { name: 'jobs', dependencies: ['database'] },
);
