import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError } from '../../../domain/errors.ts';
import { signedIn } from '../../../plugins/app/authorization.ts';
import { canCreateAdminAccount } from '../../../policies/index.ts';
import { presentProfile, ProfileSchema } from '../../../presenters/user.ts';
import type { AccountsRepository } from '../../../repositories/accounts.ts';
import {
  adminAccountInput,
  AdminBody,
  assertValidBody,
  MESSAGES,
  RegisterBody,
  registrationInput,
} from '../../../schemas/accounts.ts';
import { replies, Type } from '../../../schemas/common.ts';
import { createAccount } from '../../../services/accounts.ts';

/** Self-registration and the superusers' creation of administrator accounts. */
const newAccount: FastifyPluginAsyncTypebox<{ repo: AccountsRepository }> = async (app, { repo }) => {
  const tags = ['Comptes'];

  // Whether the sign-up page is offered: public, as the page is shown before anyone signs in.
  app.get(
    '/api/register/',
    {
      schema: {
        tags,
        response: replies({
          200: Type.Object(
            { allowed: Type.Boolean() },
            { description: 'L’inscription libre est-elle ouverte (politique de sécurité) ?' },
          ),
        }),
      },
    },
    async (_request, reply) => {
      reply.header('Cache-Control', 'no-store');
      return { allowed: (await repo.policy()).allowRegistration };
    },
  );

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
      assertValidBody(request.validationError, MESSAGES.registerInvalid);
      const input = registrationInput(request.body, policy);
      // `role` is accepted for the client's sake but ignored: self-registration never grants staff or
      // superuser rights, nor any tenant. An administrator adds the account to a tenant afterwards.
      const flags = { isStaff: false, isSuperuser: false };
      const user = await createAccount(repo, input, flags, undefined, MESSAGES.registerInvalid);
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
      assertValidBody(request.validationError, MESSAGES.adminInvalid);
      const input = adminAccountInput(request.body, await repo.policy());
      const tenant = signedIn(request).tenant;
      const membership = tenant ? { tenantId: tenant.id, role: 'admin' as const } : undefined;
      const flags = { isStaff: true, isSuperuser: true };
      const user = await createAccount(repo, input, flags, membership, MESSAGES.adminInvalid);
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
