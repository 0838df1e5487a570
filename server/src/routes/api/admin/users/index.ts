import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { MembershipRole } from '../../../../db/schema.ts';
import { hashPassword } from '../../../../lib/password.ts';
import { ApiError, notFound } from '../../../../domain/errors.ts';
import { currentTenant, signedIn } from '../../../../plugins/app/authorization.ts';
import {
  canAdministerAccount,
  canChangePlatformFlags,
  canEditAccountFields,
  canManageUsers,
} from '../../../../policies/index.ts';
import { AdminUserSchema, presentAdminUser } from '../../../../presenters/admin-user.ts';
import {
  PlatformAccounts,
  TenantUsersRepository,
  uniqueViolation,
  type AccountChanges,
  type TenantUserRow,
} from '../../../../repositories/tenant-users.ts';
import { IdParams, NoContent, Paged, replies, Type } from '../../../../schemas/common.ts';
import { refuse, snakeCase } from '../shared.ts';
import {
  createBody,
  listQuery,
  MESSAGES,
  parseUserId,
  patchBody,
  validateCreate,
  validateListQuery,
  validatePatch,
  type UsersQuery,
} from './schemas.ts';

const LIST_PATH = '/api/admin/users/';
const ITEM_PATH = `${LIST_PATH}:id/`;

/** spec §3 Admin permission set: add, change, delete and view for users and groups. */
const ADMIN_PERMISSIONS = ['user', 'group'].flatMap((what) =>
  ['add', 'change', 'delete', 'view'].map((verb) => `${verb}_${what}`),
);
const FLAGS_REFUSED = 'Attribution des droits superutilisateur ou staff refusée';

const duplicateEmail = () => new ApiError(409, 'duplicate_email', MESSAGES.emailTaken);
const duplicateUsername = () =>
  new ApiError(400, 'duplicate_username', MESSAGES.usernameTaken, { fields: { username: [MESSAGES.usernameTaken] } });
const selfChange = () =>
  new ApiError(400, 'self_change', 'Vous ne pouvez pas modifier votre propre rôle ou désactiver votre propre compte.');

/** Same path with another page number; relative, so it stays right behind any proxy. */
function pageLink(page: number, query: UsersQuery, search: string): string {
  const params = new URLSearchParams({ page: String(page) });
  if (query.page_size !== undefined) params.set('page_size', query.page_size.trim());
  if (search !== '') params.set('search', search);
  return `${LIST_PATH}?${params.toString()}`;
}

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

  /** The member with this id in the current tenant; 404 for anyone else, so existence is not revealed. */
  const loadMember = async (request: FastifyRequest, rawId: string): Promise<TenantUserRow> => {
    const id = parseUserId(rawId);
    const row = id === undefined ? undefined : await request.tenantDb((tx) => members.findMember(tx, id));
    if (!row) throw notFound();
    return row;
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
      const { page, pageSize, search } = validateListQuery(request.query);
      const { count, rows } = await request.tenantDb((tx) =>
        members.page(tx, { search, limit: pageSize, offset: (page - 1) * pageSize }),
      );
      const lastPage = Math.max(1, Math.ceil(count / pageSize));
      return {
        count,
        next: page < lastPage ? pageLink(page + 1, request.query, search) : null,
        previous: page > 1 ? pageLink(Math.min(page - 1, lastPage), request.query, search) : null,
        results: rows.map(presentAdminUser),
      };
    },
  );

  app.post(
    LIST_PATH,
    { ...guarded, schema: { tags, body: createBody, response: replies.signedIn({ 201: AdminUserSchema }, 400, 409) } },
    async (request, reply) => {
      const { actor } = signedIn(request);
      const input = validateCreate(request.body, await accounts.passwordRules());

      // spec §6: role admin (or superuser) means both flags; only a superuser hands out platform flags.
      let isSuperuser = false;
      let isStaff = false;
      if (canChangePlatformFlags(actor)) {
        isSuperuser = input.isSuperuser ?? input.role === 'admin';
        isStaff = isSuperuser || (input.isStaff ?? input.role === 'admin');
      } else if (input.isSuperuser || input.isStaff) {
        await refuse(app, request, FLAGS_REFUSED);
      }

      // Answers only "taken" whichever tenant holds the account, never where.
      const taken = await accounts.taken({ username: input.username, email: input.email });
      if (taken.username) throw duplicateUsername();
      if (taken.email) throw duplicateEmail();

      const { username, email, firstName, lastName, isActive } = input;
      const account = { username, email, firstName, lastName, isActive, isStaff, isSuperuser };
      let created: TenantUserRow;
      try {
        const passwordHash = await hashPassword(input.password);
        created = await accounts.createMember(currentTenant(request), { ...account, passwordHash }, input.role);
      } catch (err) {
        // A concurrent creation won the race between the check and the insert.
        const constraint = uniqueViolation(err);
        if (constraint === undefined) throw err;
        throw constraint.includes('email') ? duplicateEmail() : duplicateUsername();
      }
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
      const { actor } = signedIn(request);
      const target = await loadMember(request, request.params.id);
      const input = validatePatch(request.body);
      const self = target.id === actor.userId;

      if (!canAdministerAccount(actor, target)) {
        await refuse(app, request, `Modification refusée : ${target.username} est superutilisateur`);
      }

      let isSuperuser = target.isSuperuser;
      let isStaff = target.isStaff;
      if (canChangePlatformFlags(actor)) {
        // spec §6: a role update sets both flags, true for admin and false otherwise, unless given explicitly.
        if (input.role !== undefined) isSuperuser = isStaff = input.role === 'admin';
        if (input.isSuperuser !== undefined) isSuperuser = input.isSuperuser;
        if (input.isStaff !== undefined) isStaff = input.isStaff;
        if (isSuperuser) isStaff = true;
      } else if (
        (input.isSuperuser !== undefined && input.isSuperuser !== target.isSuperuser) ||
        (input.isStaff !== undefined && input.isStaff !== target.isStaff)
      ) {
        await refuse(app, request, FLAGS_REFUSED);
      }

      // The actor is an admin here (the guard said so): any other role would be a demotion.
      const demotion = (input.role !== undefined && input.role !== 'admin') || input.isActive === false;
      if (self && (demotion || (target.isSuperuser && !isSuperuser) || (target.isStaff && !isStaff))) {
        throw selfChange();
      }

      const changes: AccountChanges = {};
      for (const key of ['firstName', 'lastName', 'email', 'isActive'] as const) {
        if (input[key] !== undefined && input[key] !== target[key]) Object.assign(changes, { [key]: input[key] });
      }

      if (
        !self &&
        Object.keys(changes).length > 0 &&
        !canEditAccountFields(
          actor,
          target,
          !actor.isSuperuser && (await accounts.belongsElsewhere(target.id, currentTenant(request))),
        )
      ) {
        await refuse(app, request, `Modification refusée : le compte ${target.username} dépasse l'organisation`);
      }
      if (changes.email !== undefined && (await accounts.taken({ email: changes.email }, target.id)).email) {
        throw duplicateEmail();
      }

      if (isSuperuser !== target.isSuperuser) changes.isSuperuser = isSuperuser;
      if (isStaff !== target.isStaff) changes.isStaff = isStaff;
      const newRole: MembershipRole | undefined = input.role !== target.role ? input.role : undefined;

      let updated: TenantUserRow | undefined;
      try {
        updated = await request.tenantDb(async (tx) => {
          await members.updateAccount(tx, target.id, changes);
          if (newRole) await members.setRole(tx, target.id, newRole);
          return members.findMember(tx, target.id);
        });
      } catch (err) {
        if (uniqueViolation(err) !== undefined) throw duplicateEmail();
        throw err;
      }
      if (!updated) throw notFound();

      const changed = [...Object.keys(changes).map(snakeCase), ...(newRole ? ['role'] : [])];
      if (changed.length > 0) await recordChange(request, 'user_updated', 'Utilisateur modifié', updated, { changed });
      return presentAdminUser(updated);
    },
  );

  app.delete(
    ITEM_PATH,
    { ...guarded, schema: { tags, params: IdParams, response: replies.signedIn({ 204: NoContent }, 400, 404) } },
    async (request, reply) => {
      const { actor } = signedIn(request);
      if (parseUserId(request.params.id) === actor.userId) {
        throw new ApiError(400, 'self_delete', 'Vous ne pouvez pas supprimer votre propre compte.');
      }
      const target = await loadMember(request, request.params.id);
      if (!canAdministerAccount(actor, target)) {
        await refuse(app, request, `Suppression refusée : ${target.username} est superutilisateur`);
      }
      const removed = await request.tenantDb((tx) => members.removeMembership(tx, target.id));
      if (!removed) throw notFound();
      // Only a superuser may delete the account itself, and only once no tenant holds it.
      const accountDeleted = actor.isSuperuser ? await accounts.deleteIfOrphan(target.id) : false;
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
