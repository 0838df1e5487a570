import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ASSET_TYPES, isAssetType } from '../../../../../contract/assets.ts';
import { CRITICALITIES, isCriticality } from '../../../../../contract/severity.ts';
import { FieldErrors, notFound } from '../../../domain/errors.ts';
import { AssetSchema, presentAsset } from '../../../presenters/asset.ts';
import { ASSET_ORDERINGS, AssetsRepository } from '../../../repositories/assets.ts';
import { IdParams, ListQuery, NoContent, Paged, replies } from '../../../schemas/common.ts';
import { ASSET_MESSAGES as MESSAGES, AssetBody, unlessDuplicateAsset, validateAsset } from './asset-body.ts';
import { accessGuards } from '../shared.ts';
import { pagedResponse } from '../../../presenters/paged.ts';
import { parseOrdering, parsePaging, parseText } from '../../../schemas/query.ts';

const LIST_PATH = '/api/assets/';

const ListAssetsQuery = ListQuery({
  ordering: `Tri : ${ASSET_ORDERINGS.join(', ')} (préfixe - pour décroissant)`,
  asset_type: `Type d’actif : ${ASSET_TYPES.join(', ')}`,
  criticality: `Criticité : ${CRITICALITIES.join(', ')}`,
  text: 'Recherche dans le nom, l’hôte, l’adresse IP et la description',
});

/** Assets of the current tenant (docs/api-vulnerabilities.md). */
const assetRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const repo = new AssetsRepository();
  const guard = accessGuards(app);
  const tags = ['Actifs'];
  const ITEM_PATH = `${LIST_PATH}:id/`;

  app.get(
    LIST_PATH,
    {
      ...guard.read,
      schema: { tags, querystring: ListAssetsQuery, response: replies.signedIn({ 200: Paged(AssetSchema) }, 400) },
    },
    async (request) => {
      const errors = new FieldErrors();
      const q = request.query;
      const paging = parsePaging(errors, q);
      const assetType = q.asset_type?.trim().toLowerCase() || undefined;
      if (assetType !== undefined && !isAssetType(assetType)) errors.add('asset_type', MESSAGES.assetType);
      const criticality = q.criticality?.trim().toLowerCase() || undefined;
      if (criticality !== undefined && !isCriticality(criticality)) errors.add('criticality', MESSAGES.criticality);
      const text = parseText(errors, q, 'text');
      const ordering = parseOrdering(errors, q.ordering, ASSET_ORDERINGS, { field: 'name', desc: false });
      errors.throwIfAny();
      const { count, rows } = await request.tenantDb((tx) =>
        repo.page(tx, {
          filters: {
            assetType: assetType !== undefined && isAssetType(assetType) ? assetType : undefined,
            criticality: criticality !== undefined && isCriticality(criticality) ? criticality : undefined,
            text,
          },
          ordering,
          limit: paging.pageSize,
          offset: (paging.page - 1) * paging.pageSize,
        }),
      );
      return pagedResponse(
        LIST_PATH,
        q,
        Object.keys(ListAssetsQuery.properties),
        paging,
        count,
        rows.map(presentAsset),
      );
    },
  );

  app.post(
    LIST_PATH,
    { ...guard.write, schema: { tags, body: AssetBody, response: replies.signedIn({ 201: AssetSchema }, 400, 409) } },
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
    { ...guard.read, schema: { tags, params: IdParams, response: replies.signedIn({ 200: AssetSchema }, 404) } },
    async (request) => {
      const row = await request.tenantDb((tx) => repo.find(tx, Number(request.params.id)));
      if (!row) throw notFound();
      return presentAsset(row);
    },
  );

  for (const method of ['put', 'patch'] as const) {
    app[method](
      ITEM_PATH,
      {
        ...guard.write,
        schema: {
          tags,
          params: IdParams,
          body: AssetBody,
          response: replies.signedIn({ 200: AssetSchema }, 400, 404, 409),
        },
      },
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

  app.delete(
    ITEM_PATH,
    { ...guard.write, schema: { tags, params: IdParams, response: replies.signedIn({ 204: NoContent }, 404) } },
    async (request, reply) => {
      if (!(await request.tenantDb((tx) => repo.remove(tx, Number(request.params.id))))) throw notFound();
      return reply.code(204).send();
    },
  );
};

export default assetRoutes;
