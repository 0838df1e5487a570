import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { HomeSummarySchema } from '../../../presenters/dashboard.ts';
import { DashboardRepository } from '../../../repositories/dashboard.ts';
import { currentTenant } from '../../../plugins/app/authorization.ts';
import { replies } from '../../../schemas/common.ts';
import { taggedRoutes } from '../shared.ts';

/** The home page's figures (docs/api-vulnerabilities.md, Home dashboard). */
const dashboardRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const repo = new DashboardRepository();
  const { read } = taggedRoutes(app, ['Tableau de bord']);
  app.get(
    '/api/dashboard/summary/',
    read({ response: replies.signedIn({ 200: HomeSummarySchema }) }),
    async (request, reply) =>
      reply.cachedAnswer(`home-summary|${currentTenant(request)}`, true, (tx) => repo.homeSummary(tx)),
  );
};

export default dashboardRoutes;
