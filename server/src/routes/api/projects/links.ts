import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { TObject } from 'typebox';
import type { TenantDb } from '../../../db/tenant-scope.ts';
import { notFound, type FieldErrors } from '../../../domain/errors.ts';
import { currentTenant, signedIn } from '../../../plugins/app/authorization.ts';
import { pagedResponse } from '../../../presenters/paged.ts';
import {
  presentProjectAsset,
  presentProjectThreat,
  presentProjectVulnerability,
  ProjectAssetSchema,
  ProjectThreatSchema,
  ProjectVulnerabilitySchema,
} from '../../../presenters/project-links.ts';
import { presentThreat, ThreatSchema } from '../../../presenters/threat.ts';
import { presentVulnerability, VulnerabilitySchema } from '../../../presenters/vulnerability.ts';
import { validateAsset, type AssetBody } from '../../../schemas/assets.ts';
import { IdParams, NoContent, Paged, replies, type Static, type TSchema, Type } from '../../../schemas/common.ts';
import {
  AssetLinkBody,
  AssetLinkQuery,
  AssetUpdateBody,
  FindingLinkBody,
  FindingLinkQuery,
  findingLinkFilters,
  readLinkQuery,
  ResolveBody,
  ThreatLinkBody,
  ThreatLinkQuery,
} from '../../../schemas/projects/links.ts';
import { parseId, type RawQuery } from '../../../schemas/query.ts';
import { ProjectLinks, type Change, type LinkKind } from '../../../services/projects/links.ts';
import { accessGuards } from '../shared.ts';
import { journaledWrites } from './access.ts';

/** One kind of link as its routes answer it: the path, the reply, the inputs (schemas/) and the kind's service. */
interface LinkRoutes<Row, Body, Filters> {
  path: string;
  tags: string[];
  schema: TSchema;
  present: (row: Row) => unknown;
  body: TObject;
  query: TObject;
  /** The list's own filters, read from the query (French errors into `errors`). */
  filters?: (query: RawQuery) => (errors: FieldErrors) => Filters;
  kind: LinkKind<Row, Body, Filters>;
}

/**
 * A project's links to the tenant's inventory (docs/api-projects.md "Project assets, findings and threats"): lists
 * over readable projects, link-or-create, and changes made through the link to the asset, the finding or the
 * threat itself (services/projects/links.ts).
 */
const linkRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const links = new ProjectLinks();
  const guard = accessGuards(app);
  const write = journaledWrites(app, links.gate);
  const idOf = (request: FastifyRequest) => Number((request.params as { id: string }).id);

  /**
   * Registers the routes every kind has (list, link-or-create, read, unlink); answers `change`, which registers a
   * route that changes the link's target and answers the link as read once committed.
   */
  function register<Row, Body, Filters>(spec: LinkRoutes<Row, Body, Filters>) {
    const { path, tags, kind, schema } = spec;
    const itemPath = `${path}:id/`;
    const item = (response: Record<number, TSchema>, ...errors: number[]) => ({
      tags,
      params: IdParams,
      response: replies.signedIn(response, 404, ...errors),
    });
    const answer = async (request: FastifyRequest, linkId: number) =>
      spec.present(await request.tenantDb((tx) => links.row(tx, kind, linkId)));

    app.get(
      path,
      {
        ...guard.read,
        schema: { tags, querystring: spec.query, response: replies.signedIn({ 200: Paged(schema) }, 400) },
      },
      async (request) => {
        const q = request.query as RawQuery;
        const { paging, page, filters } = readLinkQuery(q, spec.filters?.(q) ?? (() => ({}) as Filters));
        const actor = signedIn(request).actor;
        const { count, rows } = await request.tenantDb((tx) => kind.page(tx, actor, page, filters));
        return pagedResponse(path, q, spec.query, paging, count, rows.map(spec.present));
      },
    );

    app.post(
      path,
      { ...guard.write, schema: { tags, body: spec.body, response: replies.signedIn({ 201: schema }, 400, 404, 409) } },
      async (request, reply) => {
        const body = request.body as Body & { project: number };
        // Not a possible id: unknown, like any project the caller cannot see.
        const projectId = parseId(String(body.project));
        if (projectId === undefined) throw notFound();
        const linker = { userId: signedIn(request).actor.userId, tenant: currentTenant(request) };
        const linkId = await write(request, (tx, journal) => links.link(tx, journal, kind, projectId, body, linker));
        return reply.code(201).send(await answer(request, linkId));
      },
    );

    app.get(itemPath, { ...guard.read, schema: item({ 200: schema }) }, async (request) => {
      const linkId = idOf(request);
      return spec.present(
        await request.tenantDb(async (tx) => {
          await links.reach(tx, signedIn(request).actor, kind.type, linkId, 'read');
          return links.row(tx, kind, linkId);
        }),
      );
    });

    app.delete(itemPath, { ...guard.write, schema: item({ 204: NoContent }) }, async (request, reply) => {
      await write(request, (tx, journal) => links.unlink(tx, journal, kind, idOf(request)));
      return reply.code(204).send();
    });

    return {
      /** A change of the link's target (`fn`, in the transaction), with its activity, answered as the link. */
      change(
        method: 'post' | 'put' | 'patch',
        sub: string,
        extra: { body?: TSchema; errors: number[] },
        fn: (request: FastifyRequest, tx: TenantDb, targetId: number) => Promise<Change | null>,
      ) {
        const body = extra.body ? { body: extra.body } : {};
        const options = { ...guard.write, schema: { ...item({ 200: schema }, ...extra.errors), ...body } };
        app[method](`${itemPath}${sub}`, options, async (request) => {
          const linkId = idOf(request);
          await write(request, (tx, journal) =>
            links.change(tx, journal, kind.type, linkId, (targetId) => fn(request, tx, targetId)),
          );
          return answer(request, linkId);
        });
      },
      /** What the tenant has on the link's target (`fn`), as its own API shows it. */
      read(sub: string, reply: TSchema, fn: (tx: TenantDb, targetId: number) => Promise<unknown[]>) {
        app.get(`${itemPath}${sub}/`, { ...guard.read, schema: item({ 200: Type.Array(reply) }) }, (request) =>
          request.tenantDb(async (tx) =>
            fn(tx, (await links.reach(tx, signedIn(request).actor, kind.type, idOf(request), 'read')).targetId),
          ),
        );
      },
    };
  }

  // Assets: a new asset is checked as /api/assets/ checks it, and PUT/PATCH change the asset itself.
  const assets = register({
    path: '/api/projects/assets/',
    tags: ['Projets — actifs'],
    schema: ProjectAssetSchema,
    present: presentProjectAsset,
    body: AssetLinkBody,
    query: AssetLinkQuery,
    kind: links.assets,
  });
  for (const method of ['put', 'patch'] as const) {
    assets.change(method, '', { body: AssetUpdateBody, errors: [400, 409] }, (request, tx, assetId) =>
      links.updateAsset(tx, assetId, validateAsset(request.body as AssetBody, method === 'put')),
    );
  }
  // The tenant's findings and threats on the linked asset as their own APIs show them: newest first, bounded.
  assets.read('vulnerabilities', VulnerabilitySchema, async (tx, assetId) =>
    (await links.findingsOnAsset(tx, assetId)).rows.map(presentVulnerability),
  );
  assets.read('threats', ThreatSchema, async (tx, assetId) =>
    (await links.threatsOnAsset(tx, assetId)).map(presentThreat),
  );

  // Findings: a new finding is made as the findings API makes it; mark_resolved resolves the finding itself.
  const findings = register({
    path: '/api/projects/vulnerabilities/',
    tags: ['Projets — vulnérabilités'],
    schema: ProjectVulnerabilitySchema,
    present: presentProjectVulnerability,
    body: FindingLinkBody,
    query: FindingLinkQuery,
    filters: findingLinkFilters,
    kind: links.findings,
  });
  findings.change('post', 'mark_resolved/', { body: ResolveBody, errors: [400] }, (request, tx, findingId) => {
    // Resolves (the default), or reopens with `is_resolved: false`.
    const resolved = (request.body as Static<typeof ResolveBody>)?.is_resolved ?? true;
    return links.resolveFinding(tx, signedIn(request).actor.userId, findingId, resolved);
  });

  // Threats: a new threat is checked as /api/threats/ checks it; mark_mitigated mitigates the threat itself.
  const threats = register({
    path: '/api/projects/threats/',
    tags: ['Projets — menaces'],
    schema: ProjectThreatSchema,
    present: presentProjectThreat,
    body: ThreatLinkBody,
    query: ThreatLinkQuery,
    kind: links.threats,
  });
  threats.change('post', 'mark_mitigated/', { errors: [] }, (request, tx, threatId) =>
    links.mitigateThreat(tx, signedIn(request).actor.userId, threatId),
  );
};

export default linkRoutes;
