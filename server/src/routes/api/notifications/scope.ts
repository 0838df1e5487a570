import type { FastifyInstance, FastifyRequest } from 'fastify';
import { withTenant, type TenantDb, type TenantId } from '../../../db/tenant-scope.ts';
import { ApiError, FieldErrors } from '../../../domain/errors.ts';
import { signedIn } from '../../../plugins/app/authorization.ts';
import { FORBIDDEN_MESSAGE } from '../../../policies/index.ts';

export const TENANT_MESSAGE = 'Organisation invalide : un identifiant (UUID) est attendu.';
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ScopeTenant {
  tenantId: TenantId;
  tenantName: string;
}

/**
 * The tenants a notification request covers (docs/api-notifications.md): without `tenant`, every tenant the caller
 * belongs to; with one, that tenant if the caller is a member (else 403, audited). A malformed value is a 400.
 */
export async function scopeOf(app: FastifyInstance, request: FastifyRequest, raw: unknown): Promise<ScopeTenant[]> {
  const mine = signedIn(request).memberships.map((m) => ({
    tenantId: m.tenantId as TenantId,
    tenantName: m.tenantName,
  }));
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) return mine;
  const value = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
  if (!UUID_RE.test(value)) {
    const errors = new FieldErrors();
    errors.add('tenant', TENANT_MESSAGE);
    errors.throwIfAny();
  }
  const member = mine.find((m) => m.tenantId.toLowerCase() === value);
  if (member) return [member];
  await app.audit.record(request, {
    eventType: 'permission_denied',
    description: 'Accès refusé aux notifications d’une organisation dont l’utilisateur n’est pas membre',
    severity: 'WARNING',
    success: false,
    extra: { method: request.method, path: request.routeOptions.url, requested_tenant: value },
  });
  throw new ApiError(403, 'permission_denied', FORBIDDEN_MESSAGE);
}

/** Runs fn in each tenant's own transaction, one after the other (a user belongs to few tenants). */
export async function eachTenant<T>(
  app: FastifyInstance,
  scope: readonly ScopeTenant[],
  fn: (tx: TenantDb, tenant: ScopeTenant) => Promise<T>,
): Promise<T[]> {
  const out: T[] = [];
  for (const tenant of scope) out.push(await withTenant(app.database.db, tenant.tenantId, (tx) => fn(tx, tenant)));
  return out;
}
