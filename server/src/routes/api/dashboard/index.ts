import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { todayUtc } from '../../../domain/risk-scoring.ts';
import { HomeSummarySchema, HomeWorkSchema, presentHomeWork } from '../../../presenters/dashboard.ts';
import { DashboardRepository } from '../../../repositories/dashboard.ts';
import { ProjectAccessRepository } from '../../../repositories/project-access.ts';
import { WorkOverviewRepository } from '../../../repositories/project-work.ts';
import { currentTenant, signedIn } from '../../../plugins/app/authorization.ts';
import { seesEveryProject } from '../../../policies/index.ts';
import { replies } from '../../../schemas/common.ts';
import { taggedRoutes } from '../shared.ts';

/** The home page's work items shown at most. */
export const MY_WORK_LIMIT = 8;

/** The home page's figures (docs/api-vulnerabilities.md, Home dashboard). */
const dashboardRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const repo = new DashboardRepository();
  const overview = new WorkOverviewRepository();
  const access = new ProjectAccessRepository();
  const { read } = taggedRoutes(app, ['Tableau de bord']);
  app.get(
    '/api/dashboard/summary/',
    read({ response: replies.signedIn({ 200: HomeSummarySchema }) }),
    async (request, reply) =>
      reply.cachedAnswer(`home-summary|${currentTenant(request)}`, true, (tx) => repo.homeSummary(tx)),
  );

  // The user's own work and the risks of the projects they can read: kept per user (and per day, for « en retard »)
  // under the tenant's data version.
  app.get(
    '/api/dashboard/my-work/',
    read({ response: replies.signedIn({ 200: HomeWorkSchema }) }),
    async (request, reply) => {
      const { actor } = signedIn(request);
      const readable = access.readable(actor);
      const today = todayUtc();
      const scope = seesEveryProject(actor) ? 'all' : 'team';
      return reply.cachedAnswer(
        `home-work|${currentTenant(request)}|${actor.userId}|${scope}|${today}`,
        false,
        async (tx) => ({
          work: await overview.openWorkOf(tx, readable, actor.userId, today, MY_WORK_LIMIT),
          risks: await overview.riskHeatMap(tx, readable),
        }),
        'dashboards',
        ({ work, risks }) => presentHomeWork(work, risks, today),
      );
    },
  );
};

export default dashboardRoutes;
