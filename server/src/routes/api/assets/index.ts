import { isIP } from 'node:net';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { ASSET_TYPES, CRITICALITIES, type AssetType, type Criticality } from '../../../db/schema.ts';
import { ApiError } from '../../../domain/errors.ts';
import { presentAsset } from '../../../presenters/asset.ts';
import {
  ASSET_ORDERINGS,
  AssetsRepository,
  type AssetOrderField,
  type AssetValues,
} from '../../../repositories/assets.ts';
import { uniqueViolation } from '../../../repositories/tenant-users.ts';
import { FieldErrors } from '../../../domain/errors.ts';
import {
  accessGuards,
  idParams,
  notFound,
  pagedResponse,
  parseId,
  parseOrdering,
  parsePaging,
  parseText,
  stringQuery,
  type RawQuery,
} from '../shared.ts';

const LIST_PATH = '/api/assets/';
const LIST_KEYS = ['page', 'page_size', 'ordering', 'asset_type', 'criticality', 'text'] as const;
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

interface AssetBody {
  name?: string;
  asset_type?: string;
  hostname?: string | null;
  ip_address?: string | null;
  operating_system?: string | null;
  criticality?: string;
  owner?: string | null;
  description?: string;
  tags?: string[];
}

const nullableString = { type: ['string', 'null'], maxLength: 1000 };
const assetBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', maxLength: 1000 },
    asset_type: { type: 'string', maxLength: 32 },
    hostname: nullableString,
    ip_address: nullableString,
    operating_system: nullableString,
    criticality: { type: 'string', maxLength: 32 },
    owner: nullableString,
    description: { type: 'string', maxLength: 100_000 },
    tags: { type: 'array', maxItems: 1000, items: { type: 'string', maxLength: 1000 } },
  },
} as const;

const isAssetType = (v: string): v is AssetType => (ASSET_TYPES as readonly string[]).includes(v);
const isCriticality = (v: string): v is Criticality => (CRITICALITIES as readonly string[]).includes(v);
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

/** Assets of the current tenant (docs/api-vulnerabilities.md). */
const assetRoutes: FastifyPluginAsync = async (app) => {
  const repo = new AssetsRepository();
  const guard = accessGuards(app);

  const idOf = (request: FastifyRequest<{ Params: { id: string } }>) => {
    const id = parseId(request.params.id);
    if (id === undefined) throw notFound();
    return id;
  };

  app.get<{ Querystring: RawQuery }>(
    LIST_PATH,
    { ...guard.read, schema: { querystring: stringQuery(LIST_KEYS) } },
    async (request) => {
      const errors = new FieldErrors();
      const q = request.query;
      const paging = parsePaging(errors, q);
      const assetType = q.asset_type?.trim().toLowerCase() || undefined;
      if (assetType !== undefined && !isAssetType(assetType)) errors.add('asset_type', MESSAGES.assetType);
      const criticality = q.criticality?.trim().toLowerCase() || undefined;
      if (criticality !== undefined && !isCriticality(criticality)) errors.add('criticality', MESSAGES.criticality);
      const text = parseText(errors, q, 'text');
      const ordering = parseOrdering<AssetOrderField>(errors, q.ordering, ASSET_ORDERINGS, {
        field: 'name',
        desc: false,
      });
      errors.throwIfAny();
      const { count, rows } = await request.tenantDb((tx) =>
        repo.page(tx, {
          filters: {
            assetType: assetType as AssetType | undefined,
            criticality: criticality as Criticality | undefined,
            text,
          },
          ordering,
          limit: paging.pageSize,
          offset: (paging.page - 1) * paging.pageSize,
        }),
      );
      return pagedResponse(LIST_PATH, q, LIST_KEYS, paging, count, rows.map(presentAsset));
    },
  );

  app.post<{ Body: AssetBody }>(LIST_PATH, { ...guard.write, schema: { body: assetBody } }, async (request, reply) => {
    const values = validateAsset(request.body, true);
    try {
      const row = await request.tenantDb((tx) => repo.create(tx, { ...values, name: values.name! }));
      return reply.code(201).send(presentAsset(row));
    } catch (err) {
      if (uniqueViolation(err) !== undefined) throw duplicate();
      throw err;
    }
  });

  app.get<{ Params: { id: string } }>(
    `${LIST_PATH}:id/`,
    { ...guard.read, schema: { params: idParams } },
    async (request) => {
      const id = idOf(request);
      const row = await request.tenantDb((tx) => repo.find(tx, id));
      if (!row) throw notFound();
      return presentAsset(row);
    },
  );

  for (const method of ['put', 'patch'] as const) {
    app[method]<{ Params: { id: string }; Body: AssetBody }>(
      `${LIST_PATH}:id/`,
      { ...guard.write, schema: { params: idParams, body: assetBody } },
      async (request) => {
        const id = idOf(request);
        const values = validateAsset(request.body, method === 'put');
        try {
          const row = await request.tenantDb((tx) => repo.update(tx, id, values));
          if (!row) throw notFound();
          return presentAsset(row);
        } catch (err) {
          if (uniqueViolation(err) !== undefined) throw duplicate();
          throw err;
        }
      },
    );
  }

  app.delete<{ Params: { id: string } }>(
    `${LIST_PATH}:id/`,
    { ...guard.write, schema: { params: idParams } },
    async (request, reply) => {
      const id = idOf(request);
      if (!(await request.tenantDb((tx) => repo.remove(tx, id)))) throw notFound();
      return reply.code(204).send();
    },
  );
};

export default assetRoutes;
