import { isIP } from 'node:net';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ASSET_TYPES, isAssetType } from '../../../../../contract/assets.ts';
import { CRITICALITIES, isCriticality } from '../../../../../contract/severity.ts';
import { ApiError, FieldErrors } from '../../../domain/errors.ts';
import { AssetSchema, presentAsset } from '../../../presenters/asset.ts';
import { ASSET_ORDERINGS, AssetsRepository, type AssetValues } from '../../../repositories/assets.ts';
import { uniqueViolation } from '../../../repositories/tenant-users.ts';
import {
  IdParams,
  ListQuery,
  NoContent,
  Nullable,
  Paged,
  replies,
  Type,
  type Static,
} from '../../../schemas/common.ts';
import { accessGuards, notFound, pagedResponse, parseOrdering, parsePaging, parseText } from '../shared.ts';

const LIST_PATH = '/api/assets/';
const MAX_NAME = 200;

const MESSAGES = {
  nameRequired: 'Le nom de l’actif est requis.',
  nameTooLong: `Le nom ne doit pas dépasser ${MAX_NAME} caractères.`,
  duplicate: 'Un actif porte déjà ce nom.',
  assetType: `Type d’actif invalide. Valeurs possibles : ${ASSET_TYPES.join(', ')}.`,
  criticality: `Criticité invalide. Valeurs possibles : ${CRITICALITIES.join(', ')}.`,
  ip: 'Adresse IP invalide.',
  tags: 'Au plus 50 étiquettes de 100 caractères chacune.',
} as const;

const ListAssetsQuery = ListQuery({
  ordering: `Tri : ${ASSET_ORDERINGS.join(', ')} (préfixe - pour décroissant)`,
  asset_type: `Type d’actif : ${ASSET_TYPES.join(', ')}`,
  criticality: `Criticité : ${CRITICALITIES.join(', ')}`,
  text: 'Recherche dans le nom, l’hôte, l’adresse IP et la description',
});

const text = (max: number) => Type.String({ maxLength: max });
/** Types and sizes are checked by the schema; trimming, case and the French messages by `validateAsset`. */
const AssetBody = Type.Object(
  {
    name: Type.Optional(text(1000)),
    asset_type: Type.Optional(Type.String({ maxLength: 32, errorMessage: MESSAGES.assetType })),
    hostname: Type.Optional(Nullable(text(1000))),
    ip_address: Type.Optional(Nullable(Type.String({ maxLength: 1000, errorMessage: MESSAGES.ip }))),
    operating_system: Type.Optional(Nullable(text(1000))),
    criticality: Type.Optional(Type.String({ maxLength: 32, errorMessage: MESSAGES.criticality })),
    owner: Type.Optional(Nullable(text(1000))),
    description: Type.Optional(text(100_000)),
    tags: Type.Optional(Type.Array(text(1000), { maxItems: 1000, errorMessage: MESSAGES.tags })),
  },
  { additionalProperties: false },
);
type AssetBody = Static<typeof AssetBody>;

const optional = (v: string | null | undefined) => (v === undefined ? undefined : v?.trim() || null);

function validateAsset(body: AssetBody, requireName: boolean): AssetValues {
  const errors = new FieldErrors();
  const out: AssetValues = {};
  const name = body.name?.trim();
  if (name === undefined || name === '') {
    if (requireName || name === '') errors.add('name', MESSAGES.nameRequired);
  } else if (name.length > MAX_NAME) errors.add('name', MESSAGES.nameTooLong);
  else out.name = name;
  if (body.asset_type !== undefined) {
    const t = body.asset_type.trim().toLowerCase();
    if (isAssetType(t)) out.assetType = t;
    else errors.add('asset_type', MESSAGES.assetType);
  }
  if (body.criticality !== undefined) {
    const c = body.criticality.trim().toLowerCase();
    if (isCriticality(c)) out.criticality = c;
    else errors.add('criticality', MESSAGES.criticality);
  }
  const ip = optional(body.ip_address);
  if (ip && isIP(ip) === 0) errors.add('ip_address', MESSAGES.ip);
  else if (ip !== undefined) out.ipAddress = ip;
  if (body.hostname !== undefined) out.hostname = optional(body.hostname)!;
  if (body.operating_system !== undefined) out.operatingSystem = optional(body.operating_system)!;
  if (body.owner !== undefined) out.owner = optional(body.owner)!;
  if (body.description !== undefined) out.description = body.description;
  if (body.tags !== undefined) {
    const tags = [...new Set(body.tags.map((t) => t.trim()).filter((t) => t !== ''))];
    if (tags.length > 50 || tags.some((t) => t.length > 100)) errors.add('tags', MESSAGES.tags);
    else out.tags = tags;
  }
  errors.throwIfAny();
  return out;
}

const duplicate = () => new ApiError(409, 'duplicate', MESSAGES.duplicate, { fields: { name: [MESSAGES.duplicate] } });

/** A write that hits the (tenant, name) unique index is a 409 with the field named. */
async function unlessDuplicate<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (uniqueViolation(err) !== undefined) throw duplicate();
    throw err;
  }
}

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
      const row = await unlessDuplicate(request.tenantDb((tx) => repo.create(tx, { ...values, name: values.name! })));
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
        const row = await unlessDuplicate(request.tenantDb((tx) => repo.update(tx, Number(request.params.id), values)));
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
