import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { todayUtc } from '../../../domain/risk-scoring.ts';
import {
  HomeSummarySchema,
  HomeWorkSchema,
  presentHomeWork,
  presentRiskMap,
  presentWallEvents,
  RiskMapSchema,
  WallEventsSchema,
} from '../../../presenters/dashboard.ts';
import { NotificationsRepository } from '../../../repositories/notifications.ts';
import { WALL_EVENTS_LIMIT } from '../../../../../contract/displays.ts';
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
  const notifications = new NotificationsRepository();
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

  // A wall's panels (docs/displays.md), for a signed-in kiosk and a paired screen alike. A screen was approved by an
  // administrator or manager of its tenant, who sees every project: so does the screen.
  app.get(
    '/api/dashboard/risks/',
    read({ response: replies.signedIn({ 200: RiskMapSchema }) }),
    async (request, reply) => {
      const actor = request.display ? null : signedIn(request).actor;
      // access.readable already answers every project to those who see them all; the key says which answer it is.
      const readable = actor ? access.readable(actor) : access.everyProject();
      const scope = !actor || seesEveryProject(actor) ? 'all' : `team|${actor.userId}`;
      return reply.cachedAnswer(
        `wall-risks|${currentTenant(request)}|${scope}`,
        false,
        (tx) => overview.riskHeatMap(tx, readable),
        'dashboards',
        presentRiskMap,
      );
    },
  );

  // Not kept: notifications are no tracked write (migration 0019), and this read is one short index scan.
  app.get('/api/dashboard/events/', read({ response: replies.signedIn({ 200: WallEventsSchema }) }), async (request) =>
    presentWallEvents(await request.tenantDb((tx) => notifications.wallEvents(tx, WALL_EVENTS_LIMIT))),
  );
};

export default dashboardRoutes;
