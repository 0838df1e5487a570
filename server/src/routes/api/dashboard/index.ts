import type { FastifyPluginAsync } from 'fastify';
import { DashboardRepository } from '../../../repositories/dashboard.ts';
import { accessGuards } from '../shared.ts';

/** The home page's figures (docs/api-vulnerabilities.md, Home dashboard). */
const dashboardRoutes: FastifyPluginAsync = async (app) => {
  const repo = new DashboardRepository();
  const guard = accessGuards(app);
  app.get('/api/dashboard/summary/', guard.read, async (request) => request.tenantDb((tx) => repo.homeSummary(tx)));
};

export default dashboardRoutes;
