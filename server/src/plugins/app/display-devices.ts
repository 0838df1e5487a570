import fp from 'fastify-plugin';
import type { TenantId } from '../../db/tenant-scope.ts';
import { ApiError } from '../../domain/errors.ts';
import { digestOf } from '../../lib/one-time-codes.ts';
import { displayMayCall } from '../../policies/index.ts';
import { displayCredentialRepo } from '../../repositories/displays.ts';
import { displayRefused } from './authentication.ts';

export const DISPLAY_UNKNOWN_MESSAGE = 'Écran révoqué ou inconnu : appairez-le à nouveau.';
/** The route where a display learns its settings (and its tenants): open to it whatever tenant it names. */
export const DISPLAY_ME_PATH = '/api/displays/me/';

const DISPLAY_SCHEME = /^Display\s+(\S{1,200})$/i;

/** The credential of `Authorization: Display <token>`, if that is the scheme. */
export function readDisplayCredential(header: string | undefined): string | undefined {
  return DISPLAY_SCHEME.exec(header ?? '')?.[1];
}

/** Unknown, revoked or past its grace: the screen forgets it and asks a new pairing. */
export const displayUnknown = () => new ApiError(401, 'display_unknown', DISPLAY_UNKNOWN_MESSAGE);

/**
 * Paired wall screens (issue 22, docs/displays.md): the one place a display's credential is recognised and held to
 * its reads. Before any other hook of the route: a display outside DISPLAY_READS (policies/index.ts), or writing, or
 * naming a tenant that is not one of its own, gets its 403 here, whatever the route would have said; a revoked one
 * its 401 on every request. Read from the database each time: a revocation holds at once, in every process.
 *
 * A display's reads share the answer cache with people's (plugins/app/answer-cache.ts): those answers are keyed by
 * tenant and query and hold nothing of the person asking, so a screen gets what any member of its tenant would. The
 * kept signed-in states (services/kept-sign-in.ts) are people's only: a display never enters them.
 */
export default fp(
  async (app) => {
    const db = app.database.db;
    app.addHook('onRequest', async (request) => {
      const token = readDisplayCredential(request.headers.authorization);
      if (token === undefined) return;
      const digest = digestOf(token);
      const found = await displayCredentialRepo.recognise(db, digest, new Date());
      if (!found) throw displayUnknown();
      const { row, viaPrevious } = found;
      const tenants = (await displayCredentialRepo.tenantsIn(db, row.tenantIds, true)) as {
        id: TenantId;
        name: string;
      }[];
      const header = request.headers['x-tenant-id'];
      const asked = typeof header === 'string' && header !== '' ? header.toLowerCase() : undefined;
      const tenant = asked === undefined ? tenants[0] : tenants.find((t) => t.id === asked);
      request.display = {
        id: row.id,
        credential: { digest, viaPrevious, issuedAt: row.tokenIssuedAt },
        tenants,
        tenant: tenant ?? null,
      };
      const route = request.routeOptions.url;
      if (
        !displayMayCall(request.method, route, request.query) ||
        (asked !== undefined && !tenant && route !== DISPLAY_ME_PATH)
      ) {
        await app.audit.record(request, {
          eventType: 'permission_denied',
          description: 'Accès refusé : écran d’affichage hors de ses lectures',
          severity: 'WARNING',
          success: false,
          tenantId: row.tenantId,
          extra: { display_id: row.id, method: request.method, path: route ?? request.url.split('?')[0] },
        });
        throw displayRefused();
      }
    });
  },
  { name: 'display-devices', dependencies: ['database', 'audit', 'authentication'] },
);
