import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { notFound } from '../../../domain/errors.ts';
import { AssetSchema, presentAsset } from '../../../presenters/asset.ts';
import { pagedResponse } from '../../../presenters/paged.ts';
import { AssetsRepository } from '../../../repositories/assets.ts';
import { AssetBody, ListAssetsQuery, readAssetList, validateAsset } from '../../../schemas/assets.ts';
import { IdParams, Paged, replies } from '../../../schemas/common.ts';
import { unlessDuplicateAsset } from '../../../services/assets.ts';
import { found, taggedRoutes } from '../shared.ts';
import { signedIn } from '../../../plugins/app/authorization.ts';
import { AssetOverviewRepository } from '../../../repositories/asset-overview.ts';
import { FindingEventsRepository } from '../../../repositories/finding-events.ts';
import { ProjectAccessRepository } from '../../../repositories/project-access.ts';
import { AssetOverviewSchema, presentAssetOverview } from '../../../presenters/asset-overview.ts';
import { pageWindow } from '../../../schemas/query.ts';

const LIST_PATH = '/api/assets/';
const ITEM_PATH = `${LIST_PATH}:id/`;
const HISTORY_SHOWN = 30;

/** Assets of the current tenant (docs/api-vulnerabilities.md). */
const assetRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const repo = new AssetsRepository();
  const overviews = new AssetOverviewRepository();
  const events = new FindingEventsRepository();
  const projectAccess = new ProjectAccessRepository();
  const { read, write, deleteById } = taggedRoutes(app, ['Actifs']);

  app.get(
    LIST_PATH,
    read({ querystring: ListAssetsQuery, response: replies.signedIn({ 200: Paged(AssetSchema) }, 400) }),
    async (request) => {
      const { paging, filters, ordering } = readAssetList(request.query);
      const { count, rows } = await request.tenantDb((tx) =>
        repo.page(tx, { filters, ordering, ...pageWindow(paging) }),
      );
      return pagedResponse(LIST_PATH, request.query, ListAssetsQuery, paging, count, rows.map(presentAsset));
    },
  );

  app.post(
    LIST_PATH,
    write({ body: AssetBody, response: replies.signedIn({ 201: AssetSchema }, 400, 409) }),
    async (request, reply) => {
      const values = validateAsset(request.body, true);
      const row = await unlessDuplicateAsset(
        request.tenantDb((tx) => repo.create(tx, { ...values, name: values.name! })),
      );
      return reply.code(201).send(presentAsset(row));
    },
  );

  app.get(
    ITEM_PATH,
    read({ params: IdParams, response: replies.signedIn({ 200: AssetSchema }, 404) }),
    async (request) => presentAsset(await found(request, (tx) => repo.find(tx, Number(request.params.id)))),
  );

  // The asset's page (issue 21): its findings by state and severity, scans, projects and the latest history lines.
  app.get(
    `${ITEM_PATH}overview/`,
    read({ params: IdParams, response: replies.signedIn({ 200: AssetOverviewSchema }, 404) }),
    async (request) => {
      const id = Number(request.params.id);
      const { actor } = signedIn(request);
      return presentAssetOverview(
        await found(request, async (tx) => {
          if (!(await repo.find(tx, id))) return undefined;
          const overview = await overviews.overview(tx, id, projectAccess.readable(actor));
          return { ...overview, history: await events.byAsset(tx, id, HISTORY_SHOWN) };
        }),
      );
    },
  );

  for (const method of ['put', 'patch'] as const) {
    app[method](
      ITEM_PATH,
      write({ params: IdParams, body: AssetBody, response: replies.signedIn({ 200: AssetSchema }, 400, 404, 409) }),
      async (request) => {
        const values = validateAsset(request.body, method === 'put');
        const row = await unlessDuplicateAsset(
          request.tenantDb((tx) => repo.update(tx, Number(request.params.id), values)),
        );
        if (!row) throw notFound();
        return presentAsset(row);
      },
    );
  }

  deleteById(ITEM_PATH, (request, id) => request.tenantDb((tx) => repo.remove(tx, id)));
};

export default assetRoutes;
