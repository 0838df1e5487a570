import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { TenantDb } from '../../../db/tenant-scope.ts';
import { notFound } from '../../../domain/errors.ts';
import { mitigation } from '../../../domain/threat-mitigation.ts';
import { currentTenant, signedIn } from '../../../plugins/app/authorization.ts';
import {
  presentThreat,
  presentThreatSummary,
  ThreatPageSchema,
  ThreatSchema,
  ThreatSummarySchema,
} from '../../../presenters/threat.ts';
import { ThreatsRepository, type ThreatRow } from '../../../repositories/threats.ts';
import { IdParams, replies } from '../../../schemas/common.ts';
import { ListThreatsQuery, readThreatList, ThreatBody, validateThreat } from '../../../schemas/threats.ts';
import { createThreat, threatSummary } from '../../../services/threats.ts';
import { checkAsset, found, taggedRoutes } from '../shared.ts';

const LIST_PATH = '/api/threats/';
const ITEM_PATH = `${LIST_PATH}:id/`;
const RECENT = 5;

/** Threats (spec §3 threat summary and list page; docs/api-vulnerabilities.md § Threats). */
const threatRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const repo = new ThreatsRepository();
  const { read, write, deleteById } = taggedRoutes(app, ['Menaces']);
  const assetExists = (tx: TenantDb, id: number) => repo.assetExists(tx, id);
  const load = (request: FastifyRequest, id: string) => found(request, (tx) => repo.find(tx, Number(id)));
  /** An updated threat, or 404 when it went away meanwhile. */
  const updated = (row: ThreatRow | undefined) => {
    if (!row) throw notFound();
    return presentThreat(row);
  };

  app.get(
    `${LIST_PATH}summary/`,
    read({ response: replies.signedIn({ 200: ThreatSummarySchema }) }),
    async (request, reply) => {
      return reply.cachedAnswer(`threat-summary|${currentTenant(request)}`, false, async (tx) => {
        const { bySeverity, byStatus, recent } = await threatSummary(tx, RECENT);
        return presentThreatSummary(bySeverity, byStatus, recent);
      });
    },
  );

  app.get(
    LIST_PATH,
    read({ querystring: ListThreatsQuery, response: replies.signedIn({ 200: ThreatPageSchema }, 400) }),
    async (request) => {
      const { page, size, filters } = readThreatList(request.query);
      const { total, rows } = await request.tenantDb((tx) => repo.page(tx, filters, size, (page - 1) * size));
      return { results: rows.map(presentThreat), total, page, size, pages: Math.ceil(total / size) };
    },
  );

  app.post(
    LIST_PATH,
    write({ body: ThreatBody, response: replies.signedIn({ 201: ThreatSchema }, 400) }),
    async (request, reply) => {
      const input = validateThreat(request.body, false);
      const [tenant, userId] = [currentTenant(request), signedIn(request).user.id];
      const created = await request.tenantDb((tx) => createThreat(tx, tenant, input, userId));
      return reply.code(201).send(presentThreat(created));
    },
  );

  app.get(
    ITEM_PATH,
    read({ params: IdParams, response: replies.signedIn({ 200: ThreatSchema }, 404) }),
    async (request) => presentThreat(await load(request, request.params.id)),
  );

  for (const method of ['put', 'patch'] as const) {
    app[method](
      ITEM_PATH,
      write({ params: IdParams, body: ThreatBody, response: replies.signedIn({ 200: ThreatSchema }, 400, 404) }),
      async (request) => {
        const current = await load(request, request.params.id);
        const input = validateThreat(request.body, method === 'patch');
        await checkAsset(request, input.values.assetId, assetExists);
        const userId = signedIn(request).user.id;
        const values = { ...input.values, ...mitigation(input.asked, current, userId, method === 'put') };
        return updated(await request.tenantDb((tx) => repo.update(tx, current.id, values)));
      },
    );
  }

  deleteById(ITEM_PATH, (request, id) => request.tenantDb((tx) => repo.remove(tx, id)));

  app.post(
    `${ITEM_PATH}mark_mitigated/`,
    write({ params: IdParams, response: replies.signedIn({ 200: ThreatSchema }, 404) }),
    async (request) => {
      const threat = await load(request, request.params.id);
      const values = mitigation({ status: 'MITIGATED' }, threat, signedIn(request).user.id, false);
      return updated(await request.tenantDb((tx) => repo.update(tx, threat.id, values)));
    },
  );
};

export default threatRoutes;
