import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TenantId } from '../../../db/tenant-scope.ts';
import { ApiError } from '../../../domain/errors.ts';
import { signedIn } from '../../../plugins/app/authorization.ts';
import { FORBIDDEN_MESSAGE } from '../../../policies/index.ts';
import { readTenant } from '../../../schemas/notifications.ts';
import type { ScopeTenant } from '../../../services/notification-inbox.ts';

/** Every tenant the caller belongs to. */
export const memberTenants = (request: FastifyRequest): ScopeTenant[] =>
  signedIn(request).memberships.map((m) => ({ tenantId: m.tenantId as TenantId, tenantName: m.tenantName }));

/**
 * The tenants a notification request covers (docs/api-notifications.md): without `tenant`, every tenant the caller
 * belongs to; with one, that tenant if the caller is a member (else 403, audited). A malformed value is a 400.
 */
export async function scopeOf(app: FastifyInstance, request: FastifyRequest, raw: unknown): Promise<ScopeTenant[]> {
  const mine = memberTenants(request);
  const wanted = readTenant(raw);
  if (wanted === undefined) return mine;
  const member = mine.find((m) => m.tenantId.toLowerCase() === wanted);
  if (member) return [member];
  await app.audit.record(request, {
    eventType: 'permission_denied',
    description: 'Accès refusé aux notifications d’une organisation dont l’utilisateur n’est pas membre',
    severity: 'WARNING',
    success: false,
    extra: { method: request.method, path: request.routeOptions.url, requested_tenant: wanted },
  });
  throw new ApiError(403, 'permission_denied', FORBIDDEN_MESSAGE);
}
