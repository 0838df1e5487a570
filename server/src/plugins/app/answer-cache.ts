import fp from 'fastify-plugin';
import { dataVersionRepo } from '../../repositories/data-versions.ts';
import { AnswerCache } from '../../services/answer-cache.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Dashboard answers under the tenant's data version (services/answer-cache.ts). */
    answers: AnswerCache;
  }
}

const PRUNE_EVERY_MS = 10 * 60_000;

/** The dashboards' answer cache, and the pruning of the write log its versions come from (by every process). */
export default fp(
  async (app) => {
    app.decorate('answers', new AnswerCache());
    const prune = setInterval(() => {
      void dataVersionRepo
        .prune(app.database.db)
        .catch((err: unknown) => app.log.warn({ err }, 'tenant write log prune failed'));
    }, PRUNE_EVERY_MS);
    prune.unref();
    app.addHook('onClose', async () => clearInterval(prune));
  },
  { name: 'answer-cache', dependencies: ['database'] },
);
