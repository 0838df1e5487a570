import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { currentTenant, signedIn } from '../../../../../plugins/app/authorization.ts';
import { presentProjectThreat, ProjectThreatSchema } from '../../../../../presenters/project-links.ts';
import { ProjectLinksRepository } from '../../../../../repositories/project-links.ts';
import { ThreatsRepository } from '../../../../../repositories/threats.ts';
import { IdParams, replies } from '../../../../../schemas/common.ts';
import { quoted } from '../../access.ts';
import { invalid, LinkQuery, linkRoutes, MESSAGES } from '../loader.ts';
import { ThreatLinkBody, validateThreat } from './body.ts';
import { notFound } from '../../../../../domain/errors.ts';

/**
 * /api/projects/threats/ (docs/api-projects.md "Project threats"): a project's links to the tenant's threats; a
 * new threat is checked as /api/threats/ checks it, and mark_mitigated mitigates the threat itself.
 */
const threatLinkRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const threats = new ThreatsRepository();
  const links = new ProjectLinksRepository();

  const { guard, tags, itemPath, change } = linkRoutes(app, {
    type: 'threat',
    path: '/api/projects/threats/',
    tags: ['Projets — menaces'],
    schema: ProjectThreatSchema,
    present: presentProjectThreat,
    row: (tx, linkId) => links.threatLink(tx, linkId),
    idField: 'threat_id',
    unknown: 'Menace introuvable.',
    alreadyLinked: 'Cette menace est déjà liée à ce projet.',
    noun: 'Menace',
    feminine: true,
    body: ThreatLinkBody,
    find: async (tx, id) => {
      const threat = await threats.find(tx, id);
      return threat && { id: threat.id, title: threat.title };
    },
    create: async (tx, body, request) => {
      const values = validateThreat(body, signedIn(request).actor.userId);
      if (values.assetId !== null && values.assetId !== undefined) {
        if (values.assetId < 1 || !(await threats.assetExists(tx, values.assetId))) {
          throw invalid('asset_id', MESSAGES.assetUnknown);
        }
      }
      const created = await threats.create(tx, currentTenant(request), values);
      return { id: created.id, title: created.title };
    },
    query: LinkQuery({}),
    list: () => (tx, actor, paging) => links.threatPage(tx, actor, paging),
  });

  app.post(
    `${itemPath}mark_mitigated/`,
    {
      ...guard.write,
      schema: { tags, params: IdParams, response: replies.signedIn({ 200: ProjectThreatSchema }, 404) },
    },
    (request) =>
      change(request, Number(request.params.id), async (tx, ref) => {
        const threat = await threats.find(tx, ref.targetId);
        if (!threat) throw notFound();
        // As /api/threats/{id}/mark_mitigated/: status MITIGATED; a first mitigation records when and by whom.
        if (threat.isMitigated && threat.status === 'MITIGATED') return null;
        await threats.update(tx, threat.id, {
          status: 'MITIGATED',
          isMitigated: true,
          mitigatedAt: threat.isMitigated ? threat.mitigatedAt : new Date(),
          mitigatedBy: threat.isMitigated ? threat.mitigatedBy : signedIn(request).actor.userId,
        });
        return { action: 'mitigated', summary: `Menace ${quoted(threat.title)} atténuée` };
      }),
  );
};

export default threatLinkRoutes;
