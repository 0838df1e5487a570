import type { FastifyPluginAsync } from 'fastify';
import projectRoutes from './projects.ts';
import workRoutes from './work.ts';
import linkRoutes from './links.ts';
import documentRoutes from './documents.ts';
import { auditProjectRefusals } from './access.ts';

/**
 * /api/projects (docs/api-projects.md): the projects with their team and dashboard; risks, remediation plans,
 * corrective actions and tasks; links to the tenant's assets, findings and threats; documents. Every route goes
 * through projectGate (access.ts).
 */
const projectsArea: FastifyPluginAsync = async (app) => {
  auditProjectRefusals(app);
  await app.register(projectRoutes);
  await app.register(workRoutes);
  await app.register(linkRoutes);
  await app.register(documentRoutes);
};

export default projectsArea;
