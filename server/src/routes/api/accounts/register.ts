import type { FastifyPluginAsync } from 'fastify';
import type { AccountsRepository } from '../../../repositories/accounts.ts';
import { presentProfile } from '../../../presenters/user.ts';
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
  hasErrors,
  invalid,
  MESSAGES,
  normalizeEmail,
  type FieldErrors,
} from './validation.ts';

interface RegisterBody {
  username?: string;
  email?: string;
  password?: string;
  confirm_password?: string | null;
  first_name?: string | null;
  last_name?: string | null;
  role?: string | null;
}

// Presence and format are checked in the handler, to answer the contractual French messages.
const registerBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...ACCOUNT_FIELD_SCHEMAS,
    role: { type: ['string', 'null'], maxLength: 32 },
  },
} as const;

const INVALID = "Données d'inscription invalides";

const register: FastifyPluginAsync<{ repo: AccountsRepository }> = async (app, { repo }) => {
  app.post<{ Body: RegisterBody }>(
    '/api/register/',
    { schema: { body: registerBody }, attachValidation: true },
    async (request, reply) => {
      const policy = await repo.policy();
      if (!policy.allowRegistration) throw new ApiError(403, 'registration_closed', 'Création de compte non autorisée');
      await app.limits.hit(request, 'register');
      assertValidBody(request, INVALID);

      const body = request.body;
      const username = (body.username ?? '').trim();
      const email = normalizeEmail(body.email ?? '');
      const password = body.password ?? '';
      const confirm = body.confirm_password ?? password;
      const fields: FieldErrors = {};
      checkUsername(fields, username);
      checkEmail(fields, email);
      checkPassword(fields, 'password', password, policy);
      if (password !== '' && confirm !== password) addError(fields, 'confirm_password', MESSAGES.passwordMismatch);
      if (hasErrors(fields)) throw invalid(INVALID, fields);
      await assertAvailable(repo, username, email, INVALID);

      // `role` is accepted for the client's sake but ignored: self-registration never grants staff or
      // superuser rights, nor any tenant. An administrator adds the account to a tenant afterwards.
      const user = await insertAccount(
        repo,
        {
          username,
          email,
          firstName: body.first_name?.trim() ?? '',
          lastName: body.last_name?.trim() ?? '',
          passwordHash: await hashPassword(password),
          isStaff: false,
          isSuperuser: false,
        },
        undefined,
        INVALID,
      );
      await app.audit.record(request, {
        eventType: 'user_created',
        description: 'Création de compte (inscription)',
        tenantId: null,
        userId: user.id,
        username: user.username,
      });
      reply.code(201);
      return presentProfile(user, []);
    },
  );
};

export default register;
