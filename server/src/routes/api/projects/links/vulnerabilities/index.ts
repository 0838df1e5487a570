import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError, notFound } from '../../../../../domain/errors.ts';
import { signedIn } from '../../../../../plugins/app/authorization.ts';
import { presentProjectVulnerability, ProjectVulnerabilitySchema } from '../../../../../presenters/project-links.ts';
import { AssetsRepository } from '../../../../../repositories/assets.ts';
import { ProjectLinksRepository } from '../../../../../repositories/project-links.ts';
import { uniqueViolation } from '../../../../../repositories/tenant-users.ts';
import { VulnerabilitiesRepository } from '../../../../../repositories/vulnerabilities.ts';
import { IdParams, replies, Type } from '../../../../../schemas/common.ts';
import { parseSeverities } from '../../../vulnerabilities/index.ts';
import { quoted } from '../../access.ts';
import { LinkQuery, linkRoutes } from '../loader.ts';
import { FINDING_MESSAGES, FindingLinkBody, newFinding } from './body.ts';
import { parseBoolean } from '../../../../../schemas/query.ts';

/** mark_resolved: resolves the finding (the default), or reopens it with `is_resolved: false`. */
const ResolveBody = Type.Unsafe<{ is_resolved?: boolean } | null>({
  type: ['object', 'null'],
  additionalProperties: false,
  properties: { is_resolved: { type: 'boolean' } },
});

/**
 * /api/projects/vulnerabilities/ (docs/api-projects.md "Project findings"): a project's links to the tenant's
 * findings; a new finding is made as the findings API makes it, and mark_resolved resolves the finding itself.
 */
const findingLinkRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const assets = new AssetsRepository();
  const findings = new VulnerabilitiesRepository();
  const links = new ProjectLinksRepository();

  const { guard, tags, itemPath, change } = linkRoutes(app, {
    type: 'vulnerability',
    path: '/api/projects/vulnerabilities/',
    tags: ['Projets — vulnérabilités'],
    schema: ProjectVulnerabilitySchema,
    present: presentProjectVulnerability,
    row: (tx, linkId) => links.vulnerabilityLink(tx, linkId),
    idField: 'vulnerability_id',
    unknown: 'Vulnérabilité introuvable.',
    alreadyLinked: 'Cette vulnérabilité est déjà liée à ce projet.',
    noun: 'Vulnérabilité',
    feminine: true,
    body: FindingLinkBody,
    find: async (tx, id) => {
      const finding = await findings.find(tx, id);
      return finding && { id: finding.id, title: finding.title };
    },
    create: async (tx, body) => {
      const values = await newFinding(tx, body, { assets, findings });
      try {
        return { id: await findings.create(tx, values), title: values.title };
      } catch (err) {
        if (uniqueViolation(err) !== undefined) throw new ApiError(409, 'duplicate', FINDING_MESSAGES.duplicate);
        throw err;
      }
    },
    query: LinkQuery({
      severity: 'Sévérités, séparées par des virgules',
      is_resolved: 'Résolues (true) ou non (false)',
    }),
    list: (errors, q) => {
      const severities = parseSeverities(errors, q.severity);
      const isResolved = parseBoolean(errors, q, 'is_resolved');
      return (tx, actor, paging) => links.vulnerabilityPage(tx, actor, { ...paging, severities, isResolved });
    },
  });

  app.post(
    `${itemPath}mark_resolved/`,
    {
      ...guard.write,
      schema: {
        tags,
        params: IdParams,
        body: ResolveBody,
        response: replies.signedIn({ 200: ProjectVulnerabilitySchema }, 400, 404),
      },
    },
    (request) => {
      const resolved = request.body?.is_resolved ?? true;
      return change(request, Number(request.params.id), async (tx, ref) => {
        const finding = await findings.find(tx, ref.targetId);
        if (!finding) throw notFound();
        // Resolving twice keeps the first resolution's date and author (as the vulnerability API does).
        if (finding.isResolved === resolved) return null;
        const userId = signedIn(request).actor.userId;
        await findings.update(
          tx,
          finding.id,
          resolved
            ? { isResolved: true, resolvedAt: new Date(), resolvedBy: userId }
            : { isResolved: false, resolvedAt: null, resolvedBy: null },
        );
        const summary = `Vulnérabilité ${quoted(finding.title)} ${resolved ? 'résolue' : 'rouverte'}`;
        return { action: resolved ? 'resolved' : 'reopened', summary };
      });
    },
  );
};

export default findingLinkRoutes;
