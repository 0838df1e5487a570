import type { FastifyPluginAsync } from 'fastify';
import riskRoutes from './risks.ts';
import planRoutes from './plans.ts';
import actionRoutes from './actions.ts';
import taskRoutes from './tasks.ts';

/**
 * Risks, remediation plans, corrective actions and tasks (docs/api-projects.md). Every object resolves its project
 * (action → plan → risk → project) and goes through the project gate: read to see it, edit to change it. Every
 * write appends to the project's activity in its transaction and is audited once committed (shared.ts).
 */
const workRoutes: FastifyPluginAsync = async (app) => {
  await app.register(riskRoutes);
  await app.register(planRoutes);
  await app.register(actionRoutes);
  await app.register(taskRoutes);
};

export default workRoutes;
