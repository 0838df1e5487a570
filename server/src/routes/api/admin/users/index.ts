import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { MembershipRole } from '../../../../db/schema.ts';
import { hashPassword } from '../../../../lib/password.ts';
import { ApiError } from '../../../../domain/errors.ts';
import {
  canAdministerAccount,
  canChangePlatformFlags,
  canEditAccountFields,
  canManageUsers,
  FORBIDDEN_MESSAGE,
} from '../../../../policies/index.ts';
import { presentAdminUser } from '../../../../presenters/admin-user.ts';
import {
  PlatformAccounts,
  TenantUsersRepository,
  uniqueViolation,
  type AccountChanges,
  type TenantUserRow,
} from '../../../../repositories/tenant-users.ts';
import {
  createBody,
  idParams,
  listQuery,
  MESSAGES,
  parseUserId,
  patchBody,
  validateCreate,
  validateListQuery,
  validatePatch,
  type CreateBody,
  type IdParams,
  type ListQuery,
  type PatchBody,
} from './schemas.ts';

const LIST_PATH = '/api/admin/users/';

/** §3 Admin permission set: add, change, delete and view for users and groups. */
const ADMIN_PERMISSIONS = [
  'add_user',
  'change_user',
  'delete_user',
  'view_user',
  'add_group',
  'change_group',
  'delete_group',
  'view_group',
] as const;

const notFound = () => new ApiError(404, 'not_found', 'Ressource introuvable.');
const duplicateEmail = () => new ApiError(409, 'duplicate_email', MESSAGES.emailTaken);
const duplicateUsername = () =>
  new ApiError(400, 'duplicate_username', MESSAGES.usernameTaken, { fields: { username: [MESSAGES.usernameTaken] } });

/** Same path with another page number; relative, so it stays right behind any proxy. */
function pageLink(page: number, query: ListQuery, search: string): string {
  const params = new URLSearchParams({ page: String(page) });
  if (query.page_size !== undefined) params.set('page_size', query.page_size.trim());
  if (search !== '') params.set('search', search);
  return `${LIST_PATH}?${params.toString()}`;
}

/**
 * §6 user administration for the current tenant: superusers and the tenant's own admins.
 * Members are read and written inside request.tenantDb, so row-level security keeps other tenants out.
 */
const adminUsers: FastifyPluginAsync = async (app) => {
  const members = new TenantUsersRepository();
  const accounts = new PlatformAccounts(app.database.db, members);

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

  const requireUserAdmin = async (request: FastifyRequest) => {
    if (!canManageUsers(request.auth!.actor)) await deny(request, 'Accès refusé : administration des utilisateurs');
  };
  // Authorization runs before body validation, so a non-admin always gets the 403 (and its audit line).
  const guarded = { preValidation: [app.authenticate, requireUserAdmin] };

  const currentTenant = (request: FastifyRequest) => {
    const tenant = request.auth!.tenant;
    if (!tenant) throw new ApiError(403, 'no_tenant', FORBIDDEN_MESSAGE);
    return tenant;
  };

  /** The member with this id in the current tenant; 404 for anyone else, so existence is not revealed. */
  const loadMember = async (request: FastifyRequest, rawId: string): Promise<TenantUserRow> => {
    const id = parseUserId(rawId);
    const row = id === undefined ? undefined : await request.tenantDb((tx) => members.findMember(tx, id));
    if (!row) throw notFound();
    return row;
  };

  app.get<{ Querystring: ListQuery }>(
    LIST_PATH,
    { ...guarded, schema: { querystring: listQuery } },
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

  app.post<{ Body: CreateBody }>(LIST_PATH, { ...guarded, schema: { body: createBody } }, async (request, reply) => {
    const actor = request.auth!.actor;
    const tenant = currentTenant(request);
    const input = validateCreate(request.body, await accounts.passwordRules());

    // §6: role admin (or superuser) means both flags; only a superuser hands out platform flags.
    let isSuperuser = false;
    let isStaff = false;
    if (canChangePlatformFlags(actor)) {
      isSuperuser = input.isSuperuser ?? input.role === 'admin';
      isStaff = isSuperuser || (input.isStaff ?? input.role === 'admin');
    } else if (input.isSuperuser || input.isStaff) {
      await deny(request, 'Attribution des droits superutilisateur ou staff refusée');
    }

    // Answers only "taken" whichever tenant holds the account, never where.
    const taken = await accounts.taken({ username: input.username, email: input.email });
    if (taken.username) throw duplicateUsername();
    if (taken.email) throw duplicateEmail();

    let created: TenantUserRow;
    try {
      created = await accounts.createMember(
        tenant.id,
        {
          username: input.username,
          email: input.email,
          passwordHash: await hashPassword(input.password),
          firstName: input.firstName,
          lastName: input.lastName,
          isActive: input.isActive,
          isStaff,
          isSuperuser,
        },
        input.role,
      );
    } catch (err) {
      // A concurrent creation won the race between the check and the insert.
      const constraint = uniqueViolation(err);
      if (constraint === undefined) throw err;
      throw constraint.includes('email') ? duplicateEmail() : duplicateUsername();
    }
    await app.audit.record(request, {
      eventType: 'user_created',
      description: `Utilisateur créé : ${created.username}`,
      extra: { target_user_id: created.id, target_username: created.username, role: input.role },
    });
    return reply.code(201).send(presentAdminUser(created));
  });

  app.get<{ Params: IdParams }>(`${LIST_PATH}:id/`, { ...guarded, schema: { params: idParams } }, async (request) =>
    presentAdminUser(await loadMember(request, request.params.id)),
  );

  app.patch<{ Params: IdParams; Body: PatchBody }>(
    `${LIST_PATH}:id/`,
    { ...guarded, schema: { params: idParams, body: patchBody } },
    async (request) => {
      const actor = request.auth!.actor;
      const tenant = currentTenant(request);
      const target = await loadMember(request, request.params.id);
      const input = validatePatch(request.body);
      const self = target.id === actor.userId;

      if (!canAdministerAccount(actor, target)) {
        await deny(request, `Modification refusée : ${target.username} est superutilisateur`);
      }

      let isSuperuser = target.isSuperuser;
      let isStaff = target.isStaff;
      if (canChangePlatformFlags(actor)) {
        // §6: a role update sets both flags, true for admin and false otherwise, unless given explicitly.
        if (input.role !== undefined) isSuperuser = isStaff = input.role === 'admin';
        if (input.isSuperuser !== undefined) isSuperuser = input.isSuperuser;
        if (input.isStaff !== undefined) isStaff = input.isStaff;
        if (isSuperuser) isStaff = true;
      } else if (
        (input.isSuperuser !== undefined && input.isSuperuser !== target.isSuperuser) ||
        (input.isStaff !== undefined && input.isStaff !== target.isStaff)
      ) {
        await deny(request, 'Attribution des droits superutilisateur ou staff refusée');
      }

      // The actor is an admin here (the guard said so): any other role would be a demotion.
      if (
        self &&
        ((input.role !== undefined && input.role !== 'admin') ||
          (target.isSuperuser && !isSuperuser) ||
          (target.isStaff && !isStaff) ||
          input.isActive === false)
      ) {
        throw new ApiError(
          400,
          'self_change',
          'Vous ne pouvez pas modifier votre propre rôle ou désactiver votre propre compte.',
        );
      }

      const changes: AccountChanges = {};
      if (input.firstName !== undefined && input.firstName !== target.firstName) changes.firstName = input.firstName;
      if (input.lastName !== undefined && input.lastName !== target.lastName) changes.lastName = input.lastName;
      if (input.email !== undefined && input.email !== target.email) changes.email = input.email;
      if (input.isActive !== undefined && input.isActive !== target.isActive) changes.isActive = input.isActive;

      if (
        !self &&
        Object.keys(changes).length > 0 &&
        !canEditAccountFields(
          actor,
          target,
          !actor.isSuperuser && (await accounts.belongsElsewhere(target.id, tenant.id)),
        )
      ) {
        await deny(request, `Modification refusée : le compte ${target.username} dépasse l'organisation`);
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

      const changed = [
        ...Object.keys(changes).map((k) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)),
        ...(newRole ? ['role'] : []),
      ];
      if (changed.length > 0) {
        await app.audit.record(request, {
          eventType: 'user_updated',
          description: `Utilisateur modifié : ${updated.username}`,
          extra: { target_user_id: updated.id, target_username: updated.username, changed },
        });
      }
      return presentAdminUser(updated);
    },
  );

  app.delete<{ Params: IdParams }>(
    `${LIST_PATH}:id/`,
    { ...guarded, schema: { params: idParams } },
    async (request, reply) => {
      const actor = request.auth!.actor;
      if (parseUserId(request.params.id) === actor.userId) {
        throw new ApiError(400, 'self_delete', 'Vous ne pouvez pas supprimer votre propre compte.');
      }
      const target = await loadMember(request, request.params.id);
      if (!canAdministerAccount(actor, target)) {
        await deny(request, `Suppression refusée : ${target.username} est superutilisateur`);
      }
      const removed = await request.tenantDb((tx) => members.removeMembership(tx, target.id));
      if (!removed) throw notFound();
      // Only a superuser may delete the account itself, and only once no tenant holds it.
      const accountDeleted = actor.isSuperuser ? await accounts.deleteIfOrphan(target.id) : false;
      await app.audit.record(request, {
        eventType: 'user_deleted',
        description: `Utilisateur retiré de l'organisation : ${target.username}`,
        extra: { target_user_id: target.id, target_username: target.username, account_deleted: accountDeleted },
      });
      return reply.code(204).send();
    },
  );

  app.get('/api/admin/permissions/', guarded, async (request) => {
    const actor = request.auth!.actor;
    return {
      is_superuser: actor.isSuperuser,
      is_staff: actor.isStaff,
      permissions: [...ADMIN_PERMISSIONS],
      groups: [] as string[],
    };
  });
};

export default adminUsers;
