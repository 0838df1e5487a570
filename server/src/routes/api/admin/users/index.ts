import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ApiError, notFound } from '../../../../domain/errors.ts';
import { currentTenant, signedIn } from '../../../../plugins/app/authorization.ts';
import { canManageUsers } from '../../../../policies/index.ts';
import { AdminUserSchema, presentAdminUser } from '../../../../presenters/admin-user.ts';
import { PlatformAccounts, TenantUsersRepository, type TenantUserRow } from '../../../../repositories/tenant-users.ts';
import {
  createBody,
  listQuery,
  MESSAGES,
  parseUserId,
  patchBody,
  usersPage,
  validateCreate,
  validateListQuery,
  validatePatch,
} from '../../../../schemas/admin/users.ts';
import { IdParams, NoContent, Paged, replies, Type } from '../../../../schemas/common.ts';
import { createMember, removeMember, updateMember, type MemberAdmin } from '../../../../services/admin-users.ts';
import { found } from '../../shared.ts';
import { pageWindow } from '../../../../schemas/query.ts';

const LIST_PATH = '/api/admin/users/';
const ITEM_PATH = `${LIST_PATH}:id/`;

/** spec §3 Admin permission set: add, change, delete and view for users and groups. */
const ADMIN_PERMISSIONS = ['user', 'group'].flatMap((what) =>
  ['add', 'change', 'delete', 'view'].map((verb) => `${verb}_${what}`),
);

/**
 * spec §6 user administration for the current tenant: superusers and the tenant's own admins.
 * Members are read and written inside request.tenantDb, so row-level security keeps other tenants out.
 */
const adminUsers: FastifyPluginAsyncTypebox = async (app) => {
  const members = new TenantUsersRepository();
  const accounts = new PlatformAccounts(app.database.db, members);
  // Authorization runs before body validation, so a non-admin always gets the 403 (and its audit line).
  const guarded = app.guard((auth) => canManageUsers(auth.actor), { refusal: 'administration des utilisateurs' });
  const tags = ['Utilisateurs (administration)'];

  const adminOf = (request: FastifyRequest): MemberAdmin => ({
    actor: signedIn(request).actor,
    tenantId: currentTenant(request),
    accounts,
    members,
    tenantDb: (fn) => request.tenantDb(fn),
    deny: (description) => app.refuse(request, { audit: description }),
  });

  /** The member with this id in the current tenant; 404 for anyone else, so existence is not revealed. */
  const loadMember = (request: FastifyRequest, rawId: string): Promise<TenantUserRow> => {
    const id = parseUserId(rawId);
    if (id === undefined) throw notFound();
    return found(request, (tx) => members.findMember(tx, id));
  };

  /** A change to an account, in the actor's tenant trail: the target named by id and username. */
  const recordChange = (
    request: FastifyRequest,
    eventType: 'user_created' | 'user_updated' | 'user_deleted',
    description: string,
    target: TenantUserRow,
    extra: Record<string, unknown>,
  ) =>
    app.audit.record(request, {
      eventType,
      description: `${description} : ${target.username}`,
      extra: { target_user_id: target.id, target_username: target.username, ...extra },
    });

  app.get(
    LIST_PATH,
    {
      ...guarded,
      schema: { tags, querystring: listQuery, response: replies.signedIn({ 200: Paged(AdminUserSchema) }, 400) },
    },
    async (request) => {
      const list = validateListQuery(request.query);
      const { count, rows } = await request.tenantDb((tx) =>
        members.page(tx, { search: list.search, ...pageWindow(list) }),
      );
      return usersPage(LIST_PATH, request.query, list, count, rows.map(presentAdminUser));
    },
  );

  app.post(
    LIST_PATH,
    { ...guarded, schema: { tags, body: createBody, response: replies.signedIn({ 201: AdminUserSchema }, 400, 409) } },
    async (request, reply) => {
      const input = validateCreate(request.body, await accounts.passwordRules());
      const created = await createMember(adminOf(request), input);
      await recordChange(request, 'user_created', 'Utilisateur créé', created, { role: input.role });
      return reply.code(201).send(presentAdminUser(created));
    },
  );

  app.get(
    ITEM_PATH,
    { ...guarded, schema: { tags, params: IdParams, response: replies.signedIn({ 200: AdminUserSchema }, 404) } },
    async (request) => presentAdminUser(await loadMember(request, request.params.id)),
  );

  app.patch(
    ITEM_PATH,
    {
      ...guarded,
      schema: {
        tags,
        params: IdParams,
        body: patchBody,
        response: replies.signedIn({ 200: AdminUserSchema }, 400, 404, 409),
      },
    },
    async (request) => {
      const target = await loadMember(request, request.params.id);
      const { updated, changed } = await updateMember(adminOf(request), target, validatePatch(request.body));
      if (changed.length > 0) await recordChange(request, 'user_updated', 'Utilisateur modifié', updated, { changed });
      return presentAdminUser(updated);
    },
  );

  app.delete(
    ITEM_PATH,
    { ...guarded, schema: { tags, params: IdParams, response: replies.signedIn({ 204: NoContent }, 400, 404) } },
    async (request, reply) => {
      if (parseUserId(request.params.id) === signedIn(request).actor.userId) {
        throw new ApiError(400, 'self_delete', MESSAGES.selfDelete);
      }
      const target = await loadMember(request, request.params.id);
      const accountDeleted = await removeMember(adminOf(request), target);
      await recordChange(request, 'user_deleted', "Utilisateur retiré de l'organisation", target, {
        account_deleted: accountDeleted,
      });
      return reply.code(204).send();
    },
  );

  const Permissions = Type.Object({
    is_superuser: Type.Boolean(),
    is_staff: Type.Boolean(),
    permissions: Type.Array(Type.String()),
    groups: Type.Array(Type.String()),
  });
  app.get(
    '/api/admin/permissions/',
    { ...guarded, schema: { tags, response: replies.signedIn({ 200: Permissions }) } },
    async (request) => {
      const { actor } = signedIn(request);
      return { is_superuser: actor.isSuperuser, is_staff: actor.isStaff, permissions: ADMIN_PERMISSIONS, groups: [] };
    },
  );
};

export default adminUsers;
