import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError } from '../../../domain/errors.ts';
import { canRead } from '../../../policies/index.ts';
import { CveSchema, presentCve, presentCveHit } from '../../../presenters/cve.ts';
import { searchCves } from '../../../repositories/cves.ts';
import { replies } from '../../../schemas/common.ts';
import { CveParams, readSearch, SearchQuery, SearchReply } from '../../../schemas/cves.ts';
import { CVE_RE } from '../../../schemas/fields.ts';
import { cveWithContext } from '../../../services/cves.ts';

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
      const { text, ...page } = readSearch(request.query);
      const { count, rows } = await searchCves(app.database.db, text, page);
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
      const found = CVE_RE.test(id) ? await request.tenantDb((tx) => cveWithContext(tx, id)) : undefined;
      if (!found) throw new ApiError(404, 'not_found', `CVE inconnue : ${raw.slice(0, 40)}`);
      return presentCve(found.row, found.cwes, found.affected);
    },
  );
};

export default cveRoutes;
