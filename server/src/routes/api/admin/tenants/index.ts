import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { ApiError } from '../../../../domain/errors.ts';
import {
  canAdministerTenants,
  canEditTenant,
  canGovernTenants,
  FORBIDDEN_MESSAGE,
  seesEveryTenant,
} from '../../../../policies/index.ts';
import { presentTenant } from '../../../../presenters/tenant.ts';
import {
  TenantsRepository,
  tenantUniqueViolation,
  type TenantChanges,
  type TenantView,
} from '../../../../repositories/tenants.ts';
import {
  confirmationOf,
  idParams,
  isTenantId,
  listQuery,
  TENANT_MESSAGES,
  validateTenant,
  type IdParams,
  type ListQuery,
} from './schemas.ts';

const LIST_PATH = '/api/admin/tenants/';

const notFound = () => new ApiError(404, 'not_found', 'Ressource introuvable.');
const duplicateDomain = () =>
  new ApiError(409, 'duplicate_domain', TENANT_MESSAGES.domainTaken, {
    fields: { domain: [TENANT_MESSAGES.domainTaken] },
  });

const CHANGE_KEYS: Record<keyof TenantChanges, string> = {
  name: 'name',
  domain: 'domain',
  subscriptionPlan: 'subscription_plan',
  status: 'status',
  contactEmail: 'contact_email',
  logoUrl: 'logo_url',
};

/** Only the fields whose value really changes, for the update and its audit line. */
function diff(row: TenantView, input: TenantChanges): TenantChanges {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(input) as (keyof TenantChanges)[]) {
    if (input[key] !== row[key]) out[key] = input[key];
  }
  return out;
}

/**
 * Tenant administration (docs/api-admin.md "Tenants"): superusers manage every tenant; a tenant's admins see
 * and edit their own. Tenants are platform rows, read on the owner connection and narrowed by policy here.
 */
const adminTenants: FastifyPluginAsync = async (app) => {
  const repo = new TenantsRepository(app.database.db);

  const deny = async (request: FastifyRequest, description: string): Promise<never> => {
    await app.audit.record(request, {
      eventType: 'permission_denied',
      description,
      severity: 'WARNING',
      success: false,
      extra: { method: request.method, path: request.routeOptions.url },
    });
    throw new ApiError(403, 'permission_denied', FORBIDDEN_MESSAGE);
  };

  const requireTenantAdmin = async (request: FastifyRequest) => {
    const auth = request.auth!;
    if (
      !canAdministerTenants(
        auth.actor,
        auth.memberships.map((m) => m.role),
      )
    )
      await deny(request, 'Accès refusé : administration des organisations');
  };
  const requireSuperuser = async (request: FastifyRequest) => {
    if (!canGovernTenants(request.auth!.actor)) await deny(request, 'Accès refusé : gestion des organisations');
  };
  // Authorization runs before body validation, so a refused caller always gets the 403 (and its audit line).
  const adminsOnly = { preValidation: [app.authenticate, requireTenantAdmin] };
  const superusersOnly = { preValidation: [app.authenticate, requireSuperuser] };

  /** A live tenant the caller may edit; 404 for any other, so another tenant's existence is not revealed. */
  const loadEditable = async (request: FastifyRequest, id: string): Promise<TenantView> => {
    if (!isTenantId(id)) throw notFound();
    const auth = request.auth!;
    const roleThere = auth.memberships.find((m) => m.tenantId === id)?.role ?? null;
    if (!canEditTenant(auth.actor, roleThere)) throw notFound();
    const row = await repo.find(id);
    if (!row || row.deletedAt) throw notFound();
    return row;
  };

  const record = (request: FastifyRequest, tenant: TenantView, action: string, description: string, extra = {}) =>
    app.audit.record(request, {
      eventType: 'configuration_change',
      description,
      severity: action === 'tenant_deleted' ? 'WARNING' : 'INFO',
      tenantId: tenant.id,
      extra: { action, tenant_id: tenant.id, tenant_domain: tenant.domain, ...extra },
    });

  app.get<{ Querystring: ListQuery }>(
    LIST_PATH,
    { ...adminsOnly, schema: { querystring: listQuery } },
    async (request) => {
      const auth = request.auth!;
      if (seesEveryTenant(auth.actor)) {
        const includeDeleted = ['true', '1'].includes(request.query.include_deleted ?? '');
        return (await repo.list({ includeDeleted })).map(presentTenant);
      }
      // A tenant admin's own tenants; a suspended or deleted one is already gone from the memberships.
      const ids = auth.memberships.filter((m) => canEditTenant(auth.actor, m.role)).map((m) => m.tenantId);
      return (await repo.list({ ids })).map(presentTenant);
    },
  );

  app.post(LIST_PATH, superusersOnly, async (request, reply) => {
    const input = validateTenant(request.body, 'create');
    if (await repo.domainTaken(input.domain)) throw duplicateDomain();
    let created: TenantView;
    try {
      created = await repo.create(input);
    } catch (err) {
      // A concurrent creation won the race between the check and the insert.
      if (tenantUniqueViolation(err)) throw duplicateDomain();
      throw err;
    }
    await record(request, created, 'tenant_created', `Organisation créée : ${created.name}`);
    return reply.code(201).send(presentTenant(created));
  });

  app.get<{ Params: IdParams }>(`${LIST_PATH}:id/`, { ...adminsOnly, schema: { params: idParams } }, async (request) =>
    presentTenant(await loadEditable(request, request.params.id)),
  );

  app.patch<{ Params: IdParams }>(
    `${LIST_PATH}:id/`,
    { ...adminsOnly, schema: { params: idParams } },
    async (request) => {
      const target = await loadEditable(request, request.params.id);
      const changes = diff(target, validateTenant(request.body, 'patch'));
      if (
        !canGovernTenants(request.auth!.actor) &&
        (changes.status !== undefined || changes.subscriptionPlan !== undefined)
      )
        await deny(request, `Modification du statut ou de l’offre refusée : ${target.name}`);
      if (changes.domain !== undefined && (await repo.domainTaken(changes.domain, target.id))) throw duplicateDomain();
      let updated: TenantView | undefined;
      try {
        updated = await repo.update(target.id, changes);
      } catch (err) {
        if (tenantUniqueViolation(err)) throw duplicateDomain();
        throw err;
      }
      if (!updated) throw notFound();
      const changed = Object.fromEntries(
        (Object.keys(changes) as (keyof TenantChanges)[]).map((k) => [
          CHANGE_KEYS[k],
          { from: target[k], to: updated[k] },
        ]),
      );
      if (Object.keys(changed).length > 0) {
        await record(request, updated, 'tenant_updated', `Organisation modifiée : ${updated.name}`, {
          changes: changed,
        });
      }
      return presentTenant(updated);
    },
  );

  app.delete<{ Params: IdParams }>(
    `${LIST_PATH}:id/`,
    { ...superusersOnly, schema: { params: idParams } },
    async (request, reply) => {
      const target = await loadEditable(request, request.params.id);
      // A typed confirmation, as for backups: deleting closes the tenant to every member at once.
      if (confirmationOf(request.body, request.query) !== target.domain) {
        throw new ApiError(400, 'confirmation_required', TENANT_MESSAGES.confirm(target.domain), {
          fields: { confirm: [TENANT_MESSAGES.confirm(target.domain)] },
        });
      }
      if (!(await repo.softDelete(target.id, request.auth!.user.id))) throw notFound();
      await record(request, target, 'tenant_deleted', `Organisation supprimée (récupérable) : ${target.name}`);
      return reply.code(204).send();
    },
  );

  app.post<{ Params: IdParams }>(
    `${LIST_PATH}:id/restore/`,
    { ...superusersOnly, schema: { params: idParams } },
    async (request) => {
      const id = request.params.id;
      const target = isTenantId(id) ? await repo.find(id) : undefined;
      if (!target) throw notFound();
      // Restoring a live tenant changes nothing and answers the same: a retried request is harmless.
      if (target.deletedAt && (await repo.restore(target.id))) {
        await record(request, target, 'tenant_restored', `Organisation restaurée : ${target.name}`);
      }
      return presentTenant((await repo.find(target.id))!);
    },
  );

  // §8 fallback path of the tenant list: what the caller may see, with no administrator rights needed.
  app.get('/api/tenants/', { preValidation: [app.authenticate] }, async (request) => {
    const auth = request.auth!;
    const rows = seesEveryTenant(auth.actor)
      ? await repo.list({})
      : await repo.list({ ids: auth.memberships.map((m) => m.tenantId) });
    return rows.map(presentTenant);
  });
};

export default adminTenants;
