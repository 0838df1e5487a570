import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { MembershipRole } from '../../../db/schema.ts';
import { ApiError } from '../../../domain/errors.ts';
import { hashPassword } from '../../../lib/password.ts';
import { signedIn } from '../../../plugins/app/authorization.ts';
import { canCreateAdminAccount } from '../../../policies/index.ts';
import { presentProfile, ProfileSchema } from '../../../presenters/user.ts';
import { uniqueViolation, type AccountsRepository } from '../../../repositories/accounts.ts';
import type { UserRow } from '../../../repositories/users.ts';
import { replies, Type, type Static } from '../../../schemas/common.ts';
import {
  ACCOUNT_FIELDS,
  addError,
  assertPassword,
  assertValidBody,
  Body,
  checkEmail,
  checkPassword,
  checkUsername,
  duplicateEmail,
  invalid,
  MESSAGES,
  normalizeEmail,
  throwIfAny,
  type FieldErrors,
} from './validation.ts';

const RegisterBody = Body(ACCOUNT_FIELDS);
// The client forces is_staff and is_superuser to true (spec §5); they are accepted and the server does the same.
const AdminBody = Body({
  ...ACCOUNT_FIELDS,
  is_staff: Type.Optional(Type.Boolean()),
  is_superuser: Type.Optional(Type.Boolean()),
});

const INVALID = "Données d'inscription invalides";
const ADMIN_INVALID = 'Données invalides.';
const REQUIRED = 'Tous les champs requis doivent être remplis';
const ADMIN_MIN_PASSWORD = 8;

/** The submitted account, trimmed; the email's domain lower-cased; no confirmation means "same as the password". */
function accountInput(body: Static<typeof RegisterBody>) {
  const password = body.password ?? '';
  return {
    username: (body.username ?? '').trim(),
    email: normalizeEmail(body.email ?? ''),
    password,
    confirm: body.confirm_password ?? password,
    firstName: body.first_name?.trim() ?? '',
    lastName: body.last_name?.trim() ?? '',
  };
}
type AccountInput = ReturnType<typeof accountInput>;

/**
 * Inserts the account: 409 for a taken email, 400 on the username field for a taken username (spec §8 Register), and
 * the same answers for a concurrent twin that won the race between the checks and the insert.
 */
async function createAccount(
  repo: AccountsRepository,
  input: AccountInput,
  flags: { isStaff: boolean; isSuperuser: boolean },
  membership: { tenantId: string; role: MembershipRole } | undefined,
  detail: string,
): Promise<UserRow> {
  const usernameTaken = () => invalid(detail, { username: [MESSAGES.usernameTaken] });
  if (await repo.loginTaken(input.email)) throw duplicateEmail();
  if (await repo.loginTaken(input.username)) throw usernameTaken();
  const { username, email, firstName, lastName } = input;
  const passwordHash = await hashPassword(input.password);
  try {
    return await repo.create({ username, email, firstName, lastName, passwordHash, ...flags }, membership);
  } catch (err) {
    const column = uniqueViolation(err);
    if (column === 'email') throw duplicateEmail();
    if (column === 'username') throw usernameTaken();
    throw err;
  }
}

/** Self-registration and the superusers' creation of administrator accounts. */
const newAccount: FastifyPluginAsyncTypebox<{ repo: AccountsRepository }> = async (app, { repo }) => {
  const tags = ['Comptes'];

  // Closed registration and the rate limit answer before the body is looked at; then the body's own 400.
  app.post(
    '/api/register/',
    {
      schema: { tags, body: RegisterBody, response: replies({ 201: ProfileSchema }, 400, 403, 409, 429) },
      attachValidation: true,
    },
    async (request, reply) => {
      const policy = await repo.policy();
      if (!policy.allowRegistration) throw new ApiError(403, 'registration_closed', 'Création de compte non autorisée');
      await app.limits.hit(request, 'register');
      assertValidBody(request, INVALID);

      const input = accountInput(request.body);
      const fields: FieldErrors = {};
      checkUsername(fields, input.username);
      checkEmail(fields, input.email);
      checkPassword(fields, 'password', input.password, policy);
      if (input.password !== '' && input.confirm !== input.password) {
        addError(fields, 'confirm_password', MESSAGES.passwordMismatch);
      }
      throwIfAny(fields, INVALID);
      // `role` is accepted for the client's sake but ignored: self-registration never grants staff or
      // superuser rights, nor any tenant. An administrator adds the account to a tenant afterwards.
      const user = await createAccount(repo, input, { isStaff: false, isSuperuser: false }, undefined, INVALID);
      await app.audit.record(request, {
        eventType: 'user_created',
        description: 'Création de compte (inscription)',
        tenantId: null,
        userId: user.id,
        username: user.username,
      });
      return reply.code(201).send(presentProfile(user, []));
    },
  );

  /** Superusers only; a refusal is audited under its own description and answers its own message. */
  const requireAdminCreator = async (request: FastifyRequest) => {
    if (canCreateAdminAccount(signedIn(request).actor)) return;
    await app.audit.record(request, {
      eventType: 'permission_denied',
      description: 'Création de compte admin refusée',
      severity: 'WARNING',
      success: false,
    });
    throw new ApiError(403, 'permission_denied', 'Création de compte admin non autorisée');
  };

  app.post(
    '/api/accounts/admin/create/',
    {
      preValidation: [app.authenticate],
      schema: { tags, body: AdminBody, response: replies.signedIn({ 201: ProfileSchema }, 409) },
      attachValidation: true,
    },
    async (request, reply) => {
      // In the handler, after the Idempotency-Key check (the last preHandler): a reused key answers 422 to anyone.
      await requireAdminCreator(request);
      assertValidBody(request, ADMIN_INVALID);
      const input = accountInput(request.body);
      const required: FieldErrors = {};
      if (input.username === '') addError(required, 'username', MESSAGES.usernameRequired);
      if (input.email === '') addError(required, 'email', MESSAGES.emailRequired);
      if (input.password === '') addError(required, 'password', MESSAGES.passwordRequired);
      throwIfAny(required, REQUIRED);

      // 8 is the contractual floor; a stricter platform policy (length or complexity) wins.
      const policy = await repo.policy();
      const rules = { ...policy, passwordMinLength: Math.max(ADMIN_MIN_PASSWORD, policy.passwordMinLength) };
      assertPassword('password', input.password, rules);
      const fields: FieldErrors = {};
      checkUsername(fields, input.username);
      checkEmail(fields, input.email);
      if (input.confirm !== input.password) addError(fields, 'confirm_password', MESSAGES.passwordMismatch);
      throwIfAny(fields, ADMIN_INVALID);

      const tenant = signedIn(request).tenant;
      const membership = tenant ? { tenantId: tenant.id, role: 'admin' as const } : undefined;
      const flags = { isStaff: true, isSuperuser: true };
      const user = await createAccount(repo, input, flags, membership, ADMIN_INVALID);
      await app.audit.record(request, {
        eventType: 'user_created',
        description: 'Création de compte administrateur',
        severity: 'WARNING',
        extra: { created_user_id: user.id, created_username: user.username, is_superuser: true },
      });
      const memberships = tenant ? [{ tenantId: tenant.id, tenantName: tenant.name, role: 'admin' as const }] : [];
      return reply.code(201).send(presentProfile(user, memberships));
    },
  );
};

export default newAccount;
