import type { FastifyPluginAsync } from 'fastify';
import assetLinkRoutes from './links/assets/index.ts';
import threatLinkRoutes from './links/threats/index.ts';
import findingLinkRoutes from './links/vulnerabilities/index.ts';

// documents.ts reads the activity wording helper from here; it lives with the other project activity helpers.
export { quoted } from './access.ts';

/**
 * A project's links to the tenant's inventory (docs/api-projects.md "Project assets, findings and threats"): lists
 * over readable projects, link-or-create, and changes made through the link to the asset, the finding or the
 * threat itself. One folder per kind of link, around the shared loader (links/loader.ts).
 */
const linkRoutes: FastifyPluginAsync = async (app) => {
  await app.register(assetLinkRoutes);
  await app.register(findingLinkRoutes);
  await app.register(threatLinkRoutes);
};

export default linkRoutes;
