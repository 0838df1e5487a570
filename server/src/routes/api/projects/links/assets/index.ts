import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { presentProjectAsset, ProjectAssetSchema } from '../../../../../presenters/project-links.ts';
import { presentThreat, ThreatSchema } from '../../../../../presenters/threat.ts';
import { presentVulnerability, VulnerabilitySchema } from '../../../../../presenters/vulnerability.ts';
import type { TenantDb } from '../../../../../db/tenant-scope.ts';
import { AssetsRepository } from '../../../../../repositories/assets.ts';
import { ProjectLinksRepository } from '../../../../../repositories/project-links.ts';
import { VulnerabilitiesRepository } from '../../../../../repositories/vulnerabilities.ts';
import { IdParams, replies, Type, WriteBody as writeBody } from '../../../../../schemas/common.ts';
import { assetFields, unlessDuplicateAsset, validateAsset } from '../../../assets/asset-body.ts';
import { quoted } from '../../access.ts';
import { LIMITS, LinkQuery, linkBody, linkRoutes, MESSAGES } from '../loader.ts';
import { notFound } from '../../../../../domain/errors.ts';

/** PUT/PATCH change the asset itself; the link's own fields, sent back from a read, are ignored. */
const AssetUpdateBody = writeBody(ProjectAssetSchema, assetFields);

/**
 * /api/projects/assets/ (docs/api-projects.md "Project assets"): a project's links to the tenant's assets; a new
 * asset is checked as /api/assets/ checks it, and PUT/PATCH change the asset itself.
 */
const assetLinkRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const assets = new AssetsRepository();
  const findings = new VulnerabilitiesRepository();
  const links = new ProjectLinksRepository();

  const { guard, tags, itemPath, reach, change } = linkRoutes(app, {
    type: 'asset',
    path: '/api/projects/assets/',
    tags: ['Projets — actifs'],
    schema: ProjectAssetSchema,
    present: presentProjectAsset,
    row: (tx, linkId) => links.assetLink(tx, linkId),
    idField: 'asset_id',
    unknown: MESSAGES.assetUnknown,
    alreadyLinked: 'Cet actif est déjà lié à ce projet.',
    noun: 'Actif',
    feminine: false,
    body: linkBody('asset_id', assetFields, ProjectAssetSchema),
    find: async (tx, id) => {
      const asset = await assets.find(tx, id);
      return asset && { id: asset.id, title: asset.name };
    },
    create: async (tx, body) => {
      const values = validateAsset(body, true);
      const created = await unlessDuplicateAsset(assets.create(tx, { ...values, name: values.name! }));
      return { id: created.id, title: created.name };
    },
    query: LinkQuery({}),
    list: () => (tx, actor, paging) => links.assetPage(tx, actor, paging),
  });

  for (const method of ['put', 'patch'] as const) {
    app[method](
      itemPath,
      {
        ...guard.write,
        schema: {
          tags,
          params: IdParams,
          body: AssetUpdateBody,
          response: replies.signedIn({ 200: ProjectAssetSchema }, 400, 404, 409),
        },
      },
      (request) =>
        change(request, Number(request.params.id), async (tx, ref) => {
          const values = validateAsset(request.body, method === 'put');
          const updated = await unlessDuplicateAsset(assets.update(tx, ref.targetId, values));
          if (!updated) throw notFound();
          return { action: 'updated', summary: `Actif ${quoted(updated.name)} modifié` };
        }),
    );
  }

  // The tenant's findings and threats on the linked asset as their own APIs show them: newest first, bounded.
  const onAsset = [
    {
      sub: 'vulnerabilities',
      schema: VulnerabilitySchema,
      read: async (tx: TenantDb, assetId: number) => {
        const ordering = { field: 'created_at', desc: true } as const;
        const page = await findings.page(tx, { filters: { assetId }, ordering, limit: LIMITS.assetLists, offset: 0 });
        return page.rows.map(presentVulnerability);
      },
    },
    {
      sub: 'threats',
      schema: ThreatSchema,
      read: async (tx: TenantDb, assetId: number) =>
        (await links.threatsOnAsset(tx, assetId, LIMITS.assetLists)).map(presentThreat),
    },
  ];
  for (const { sub, schema, read } of onAsset) {
    app.get(
      `${itemPath}${sub}/`,
      {
        ...guard.read,
        schema: { tags, params: IdParams, response: replies.signedIn({ 200: Type.Array(schema) }, 404) },
      },
      (request) =>
        request.tenantDb(async (tx) =>
          read(tx, (await reach(request, tx, Number(request.params.id), 'read')).targetId),
        ),
    );
  }
};

export default assetLinkRoutes;
