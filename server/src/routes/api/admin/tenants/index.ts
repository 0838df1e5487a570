import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { notFound } from '../../../../domain/errors.ts';
import { signedIn } from '../../../../plugins/app/authorization.ts';
import { canAdministerTenants, canEditTenant, canGovernTenants, seesEveryTenant } from '../../../../policies/index.ts';
import { presentTenant, TenantSchema } from '../../../../presenters/tenant.ts';
import { TenantsRepository, type TenantView } from '../../../../repositories/tenants.ts';
import {
  checkConfirmation,
  ConfirmQuery,
  ListTenantsQuery,
  TenantBody,
  TenantParams,
  validateTenant,
} from '../../../../schemas/admin/tenants.ts';
import { NoContent, replies, Type } from '../../../../schemas/common.ts';
import { createTenant, updateTenant } from '../../../../services/admin-tenants.ts';

const LIST_PATH = '/api/admin/tenants/';
const ITEM_PATH = `${LIST_PATH}:id/`;

/**
 * Tenant administration (docs/api-admin.md "Tenants"): superusers manage every tenant; a tenant's admins see
 * and edit their own. Tenants are platform rows, read on the owner connection and narrowed by policy here.
 */
const adminTenants: FastifyPluginAsyncTypebox = async (app) => {
  const repo = new TenantsRepository(app.database.db);
  const tags = ['Organisations'];
  // Authorization runs before body validation, so a refused caller always gets the 403 (and its audit line).
  const adminsOnly = app.guard(
    (auth) =>
      canAdministerTenants(
        auth.actor,
        auth.memberships.map((m) => m.role),
      ),
    { refusal: 'administration des organisations', tenant: false },
  );
  const superusersOnly = app.guard((auth) => canGovernTenants(auth.actor), {
    refusal: 'gestion des organisations',
    tenant: false,
  });
  const Tenants = Type.Array(TenantSchema);

  /** A live tenant the caller may edit; 404 for any other, so another tenant's existence is not revealed. */
  const loadEditable = async (request: FastifyRequest, id: string): Promise<TenantView> => {
    const auth = signedIn(request);
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

  app.get(
    LIST_PATH,
    { ...adminsOnly, schema: { tags, querystring: ListTenantsQuery, response: replies.signedIn({ 200: Tenants }) } },
    async (request) => {
      const auth = signedIn(request);
      if (seesEveryTenant(auth.actor)) {
        const includeDeleted = ['true', '1'].includes(request.query.include_deleted ?? '');
        return (await repo.list({ includeDeleted })).map(presentTenant);
      }
      // A tenant admin's own tenants; a suspended or deleted one is already gone from the memberships.
      const ids = auth.memberships.filter((m) => canEditTenant(auth.actor, m.role)).map((m) => m.tenantId);
      return (await repo.list({ ids })).map(presentTenant);
    },
  );

  app.post(
    LIST_PATH,
    {
      ...superusersOnly,
      schema: { tags, body: TenantBody, response: replies.signedIn({ 201: TenantSchema }, 400, 409) },
    },
    async (request, reply) => {
      const created = await createTenant(repo, validateTenant(request.body, 'create'));
      await record(request, created, 'tenant_created', `Organisation créée : ${created.name}`);
      return reply.code(201).send(presentTenant(created));
    },
  );

  app.get(
    ITEM_PATH,
    { ...adminsOnly, schema: { tags, params: TenantParams, response: replies.signedIn({ 200: TenantSchema }, 404) } },
    async (request) => presentTenant(await loadEditable(request, request.params.id)),
  );

  app.patch(
    ITEM_PATH,
    {
      ...adminsOnly,
      schema: {
        tags,
        params: TenantParams,
        body: TenantBody,
        response: replies.signedIn({ 200: TenantSchema }, 400, 404, 409),
      },
    },
    async (request) => {
      const target = await loadEditable(request, request.params.id);
      const { updated, changes } = await updateTenant(
        repo,
        target,
        validateTenant(request.body, 'patch'),
        signedIn(request).actor,
        (description) => app.refuse(request, { audit: description }),
      );
      if (Object.keys(changes).length > 0) {
        await record(request, updated, 'tenant_updated', `Organisation modifiée : ${updated.name}`, { changes });
      }
      return presentTenant(updated);
    },
  );

  app.delete(
    ITEM_PATH,
    {
      ...superusersOnly,
      schema: {
        tags,
        params: TenantParams,
        querystring: ConfirmQuery,
        body: Type.Unknown({ description: '{"confirm": "<domaine>"} (ou ?confirm=<domaine>)' }),
        response: replies.signedIn({ 204: NoContent }, 400, 404),
      },
    },
    async (request, reply) => {
      const target = await loadEditable(request, request.params.id);
      // A typed confirmation, as for backups: deleting closes the tenant to every member at once.
      checkConfirmation(request.body, request.query, target.domain);
      if (!(await repo.softDelete(target.id, signedIn(request).user.id))) throw notFound();
      await record(request, target, 'tenant_deleted', `Organisation supprimée (récupérable) : ${target.name}`);
      return reply.code(204).send();
    },
  );

  app.post(
    `${ITEM_PATH}restore/`,
    {
      ...superusersOnly,
      schema: { tags, params: TenantParams, response: replies.signedIn({ 200: TenantSchema }, 404) },
    },
    async (request) => {
      const target = await repo.find(request.params.id);
      if (!target) throw notFound();
      // Restoring a live tenant changes nothing and answers the same: a retried request is harmless.
      if (target.deletedAt && (await repo.restore(target.id))) {
        await record(request, target, 'tenant_restored', `Organisation restaurée : ${target.name}`);
      }
      return presentTenant((await repo.find(target.id))!);
    },
  );

  // spec §8 fallback path of the tenant list: what the caller may see, with no administrator rights needed.
  app.get(
    '/api/tenants/',
    { preValidation: [app.authenticate], schema: { tags, response: replies.signedIn({ 200: Tenants }) } },
    async (request) => {
      const auth = signedIn(request);
      const rows = seesEveryTenant(auth.actor)
        ? await repo.list({})
        : await repo.list({ ids: auth.memberships.map((m) => m.tenantId) });
      return rows.map(presentTenant);
    },
  );
};

export default adminTenants;
