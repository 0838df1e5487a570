import fp from 'fastify-plugin';
import type { Database } from '../../db/client.ts';

declare module 'fastify' {
  interface FastifyInstance {
    database: Database;
  }
}

/** Makes the database available to routes; whoever opened it owns closing it. */
export default fp<{ database: Database }>(
  async (app, { database }) => {
    app.decorate('database', database);
  },
  { name: 'database' },
);
