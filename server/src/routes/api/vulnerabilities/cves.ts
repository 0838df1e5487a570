import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { ApiError } from '../../../domain/errors.ts';
import { canRead, FORBIDDEN_MESSAGE } from '../../../policies/index.ts';
import { presentCve, presentCveHit } from '../../../presenters/cve.ts';
import { cweNames, findCve, openFindingsOn, searchCves } from '../../../repositories/cves.ts';

const SEARCH_PATH = '/api/vulnerabilities/es/search/';
const DETAIL_PATH = '/api/vulnerabilities/es/cve/:cveId/';
const MAX_PAGE_SIZE = 500;
const DEFAULT_PAGE_SIZE = 25;
const MAX_QUERY = 200;

interface SearchQuery {
  q?: string;
  page?: string;
  page_size?: string;
}

// No additionalProperties:false: clients add cache-busting parameters to GETs.
const searchQuery = {
  type: 'object',
  properties: {
    q: { type: 'string', maxLength: 1000 },
    page: { type: 'string', maxLength: 12 },
    page_size: { type: 'string', maxLength: 12 },
  },
} as const;

const cveParams = {
  type: 'object',
  required: ['cveId'],
  properties: { cveId: { type: 'string', maxLength: 64 } },
} as const;

function positiveInt(raw: string | undefined, field: string, fallback: number, max: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw.trim());
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < 1 || n > max) {
    const message = `Entier entre 1 et ${max} attendu.`;
    throw new ApiError(400, 'invalid', 'Paramètres de recherche invalides.', { fields: { [field]: [message] } });
  }
  return n;
}

/**
 * The CVE store (public reference data): ranked search and detail. Any signed-in member reads it, viewers
 * included; the detail's affected_assets count is read inside the tenant (row-level security).
 */
const cveRoutes: FastifyPluginAsync = async (app) => {
  const requireReader = async (request: FastifyRequest) => {
    if (!canRead(request.auth!.actor)) throw new ApiError(403, 'permission_denied', FORBIDDEN_MESSAGE);
  };
  const guarded = { preValidation: [app.authenticate, requireReader] };

  app.get<{ Querystring: SearchQuery }>(
    SEARCH_PATH,
    { ...guarded, schema: { querystring: searchQuery } },
    async (request) => {
      const started = performance.now();
      const q = (request.query.q ?? '').replace(/\s+/g, ' ').trim().slice(0, MAX_QUERY);
      if (q.length < 2) {
        const message = 'Saisissez au moins 2 caractères.';
        throw new ApiError(400, 'invalid', message, { fields: { q: [message] } });
      }
      const page = positiveInt(request.query.page, 'page', 1, 10_000);
      const pageSize = positiveInt(request.query.page_size, 'page_size', DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
      const { count, rows } = await searchCves(app.database.db, q, {
        limit: pageSize,
        offset: (page - 1) * pageSize,
      });
      return {
        count,
        results: rows.map(presentCveHit),
        took_ms: Math.round((performance.now() - started) * 10) / 10,
      };
    },
  );

  app.get<{ Params: { cveId: string } }>(
    DETAIL_PATH,
    { ...guarded, schema: { params: cveParams } },
    async (request) => {
      const raw = request.params.cveId.trim();
      const id = raw.toUpperCase();
      const found = /^CVE-\d{4}-\d{4,}$/.test(id)
        ? await request.tenantDb(async (tx) => {
            const row = await findCve(tx, id);
            if (!row) return undefined;
            return { row, cwes: await cweNames(tx, row.cweIds), affected: await openFindingsOn(tx, id) };
          })
        : undefined;
      if (!found) throw new ApiError(404, 'not_found', `CVE inconnue : ${raw.slice(0, 40)}`);
      return presentCve(found.row, found.cwes, found.affected);
    },
  );
};

export default cveRoutes;
