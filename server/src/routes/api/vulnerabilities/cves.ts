import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError } from '../../../domain/errors.ts';
import { canRead } from '../../../policies/index.ts';
import { CveHitSchema, CveSchema, presentCve, presentCveHit } from '../../../presenters/cve.ts';
import { cweNames, findCve, openFindingsOn, searchCves } from '../../../repositories/cves.ts';
import { replies, Type } from '../../../schemas/common.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, positiveInt } from '../../../schemas/query.ts';
import { CVE_RE } from '../../../schemas/fields.ts';

const MAX_QUERY = 200;
const MAX_PAGE = 10_000;

const SearchQuery = Type.Object(
  {
    q: Type.Optional(
      Type.String({ maxLength: 1000, description: 'Identifiant, mots du titre, de la description ou CWE' }),
    ),
    page: Type.Optional(Type.String({ maxLength: 12, description: `Numéro de page (1 à ${MAX_PAGE})` })),
    page_size: Type.Optional(Type.String({ maxLength: 12, description: `Taille de page (au plus ${MAX_PAGE_SIZE})` })),
  },
  { additionalProperties: true },
);
const SearchReply = Type.Object({
  count: Type.Integer({ minimum: 0 }),
  results: Type.Array(CveHitSchema),
  took_ms: Type.Number({ description: 'Durée de la recherche, en millisecondes' }),
});
const CveParams = Type.Object({ cveId: Type.String({ maxLength: 64, description: 'CVE-AAAA-NNNN' }) });

const invalidSearch = (field: string, message: string) =>
  new ApiError(400, 'invalid', 'Paramètres de recherche invalides.', { fields: { [field]: [message] } });

/** A positive integer up to `max`, `fallback` when absent. */
function bounded(raw: string | undefined, field: string, fallback: number, max: number): number {
  const n = positiveInt(raw);
  if (n === null || (n !== undefined && n > max)) throw invalidSearch(field, `Entier entre 1 et ${max} attendu.`);
  return n ?? fallback;
}

/**
 * The CVE store (public reference data): ranked search and detail. Any signed-in member reads it, viewers
 * included; the detail's affected_assets count is read inside the tenant (row-level security).
 */
const cveRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const reader = app.guard((auth) => canRead(auth.actor), { tenant: false });
  const tags = ['CVE'];

  app.get(
    '/api/vulnerabilities/es/search/',
    { ...reader, schema: { tags, querystring: SearchQuery, response: replies.signedIn({ 200: SearchReply }, 400) } },
    async (request) => {
      const started = performance.now();
      const q = (request.query.q ?? '').replace(/\s+/g, ' ').trim().slice(0, MAX_QUERY);
      if (q.length < 2) {
        const message = 'Saisissez au moins 2 caractères.';
        throw new ApiError(400, 'invalid', message, { fields: { q: [message] } });
      }
      const page = bounded(request.query.page, 'page', 1, MAX_PAGE);
      const pageSize = bounded(request.query.page_size, 'page_size', DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
      const { count, rows } = await searchCves(app.database.db, q, { limit: pageSize, offset: (page - 1) * pageSize });
      return {
        count,
        results: rows.map(presentCveHit),
        took_ms: Math.round((performance.now() - started) * 10) / 10,
      };
    },
  );

  app.get(
    '/api/vulnerabilities/es/cve/:cveId/',
    { ...reader, schema: { tags, params: CveParams, response: replies.signedIn({ 200: CveSchema }, 404) } },
    async (request) => {
      const raw = request.params.cveId.trim();
      const id = raw.toUpperCase();
      const found = CVE_RE.test(id)
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
