import type { FastifyPluginAsync } from 'fastify';
import { uniqueViolation, type AccountsRepository, type ProfilePatch } from '../../../repositories/accounts.ts';
import { presentProfile } from '../../../presenters/user.ts';
import { canCreateAdminAccount } from '../../../policies/index.ts';
import { hashPassword } from '../../../lib/password.ts';
import { ApiError } from '../../../domain/errors.ts';
import { assertAvailable, insertAccount } from './new-account.ts';
import {
  ACCOUNT_FIELD_SCHEMAS,
  addError,
  assertValidBody,
  checkEmail,
  checkPassword,
  checkUsername,
  duplicateEmail,
  hasErrors,
  invalid,
  MESSAGES,
  normalizeEmail,
  type FieldErrors,
} from './validation.ts';

interface ProfileBody {
  first_name?: string;
  last_name?: string;
  email?: string;
}

const profileBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    first_name: { type: 'string', maxLength: 150 },
    last_name: { type: 'string', maxLength: 150 },
    email: { type: 'string', maxLength: 1024 },
  },
} as const;

interface AdminBody {
  username?: string;
  email?: string;
  password?: string;
  confirm_password?: string | null;
  first_name?: string | null;
  last_name?: string | null;
  is_staff?: boolean;
  is_superuser?: boolean;
  role?: string | null;
}

// The client forces is_staff and is_superuser to true (§5); they are accepted and the server does the same.
const adminBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...ACCOUNT_FIELD_SCHEMAS,
    is_staff: { type: 'boolean' },
    is_superuser: { type: 'boolean' },
    role: { type: ['string', 'null'], maxLength: 32 },
  },
} as const;

const ADMIN_MIN_PASSWORD = 8;
const REQUIRED = 'Tous les champs requis doivent être remplis';

const profile: FastifyPluginAsync<{ repo: AccountsRepository }> = async (app, { repo }) => {
  app.patch<{ Body: ProfileBody }>(
    '/api/accounts/me/',
    { preHandler: app.authenticate, schema: { body: profileBody }, attachValidation: true },
    async (request) => {
      assertValidBody(request);
      const auth = request.auth!;
      const body = request.body ?? {};
      const patch: ProfilePatch = {};
      if (body.first_name !== undefined) patch.firstName = body.first_name.trim();
      if (body.last_name !== undefined) patch.lastName = body.last_name.trim();
      if (body.email !== undefined) {
        const fields: FieldErrors = {};
        const email = normalizeEmail(body.email);
        checkEmail(fields, email);
        if (hasErrors(fields)) throw invalid(fields.email![0]!, fields);
        if (email !== auth.user.email) {
          if (await repo.loginTaken(email, auth.user.id)) throw duplicateEmail();
          patch.email = email;
        }
      }
      let user = auth.user;
      if (Object.keys(patch).length > 0) {
        try {
          user = await repo.updateProfile(user.id, patch);
        } catch (err) {
          if (uniqueViolation(err) === 'email') throw duplicateEmail();
          throw err;
        }
        await app.audit.record(request, {
          eventType: 'user_updated',
          description: 'Profil modifié',
          extra: { fields: Object.keys(body).sort() },
        });
      }
      return presentProfile(user, auth.memberships, auth.tenant ?? undefined);
    },
  );

  app.post<{ Body: AdminBody }>(
    '/api/accounts/admin/create/',
    { preHandler: app.authenticate, schema: { body: adminBody }, attachValidation: true },
    async (request, reply) => {
      const auth = request.auth!;
      if (!canCreateAdminAccount(auth.actor)) {
        await app.audit.record(request, {
          eventType: 'permission_denied',
          description: 'Création de compte admin refusée',
          severity: 'WARNING',
          success: false,
        });
        throw new ApiError(403, 'permission_denied', 'Création de compte admin non autorisée');
      }
      assertValidBody(request);

      const body = request.body;
      const username = (body.username ?? '').trim();
      const email = normalizeEmail(body.email ?? '');
      const password = body.password ?? '';
      const required: FieldErrors = {};
      if (username === '') addError(required, 'username', MESSAGES.usernameRequired);
      if (email === '') addError(required, 'email', MESSAGES.emailRequired);
      if (password === '') addError(required, 'password', MESSAGES.passwordRequired);
      if (hasErrors(required)) throw invalid(REQUIRED, required);

      // 8 is the contractual floor; a stricter platform policy (length or complexity) wins.
      const policy = await repo.policy();
      const rules = { ...policy, passwordMinLength: Math.max(ADMIN_MIN_PASSWORD, policy.passwordMinLength) };
      const fields: FieldErrors = {};
      checkPassword(fields, 'password', password, rules);
      if (hasErrors(fields)) throw invalid(fields.password![0]!, fields);
      checkUsername(fields, username);
      checkEmail(fields, email);
      const confirm = body.confirm_password ?? password;
      if (confirm !== password) addError(fields, 'confirm_password', MESSAGES.passwordMismatch);
      if (hasErrors(fields)) throw invalid('Données invalides.', fields);
      await assertAvailable(repo, username, email, 'Données invalides.');

      const tenant = auth.tenant;
      const user = await insertAccount(
        repo,
        {
          username,
          email,
          firstName: body.first_name?.trim() ?? '',
          lastName: body.last_name?.trim() ?? '',
          passwordHash: await hashPassword(password),
          isStaff: true,
          isSuperuser: true,
        },
        tenant ? { tenantId: tenant.id, role: 'admin' } : undefined,
        'Données invalides.',
      );
      await app.audit.record(request, {
        eventType: 'user_created',
        description: 'Création de compte administrateur',
        severity: 'WARNING',
        extra: { created_user_id: user.id, created_username: user.username, is_superuser: true },
      });
      reply.code(201);
      return presentProfile(user, tenant ? [{ tenantId: tenant.id, tenantName: tenant.name, role: 'admin' }] : []);
    },
  );
};

export default profile;
