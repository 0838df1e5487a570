import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { signedIn } from '../../../plugins/app/authorization.ts';
import type { UserRow } from '../../../repositories/users.ts';
import {
  ChangeBody,
  ConfirmBody,
  Detail,
  MESSAGES,
  ResetBody,
  wrongCurrentPassword,
} from '../../../schemas/accounts.ts';
import { replies } from '../../../schemas/common.ts';
import { lockoutKey } from '../../../services/login-lockout.ts';
import type { PasswordService } from '../../../services/passwords.ts';

/** Forgotten password (a one-time link by mail) and the signed-in change of password. */
const password: FastifyPluginAsyncTypebox<{ service: PasswordService }> = async (app, { service }) => {
  const tags = ['Comptes — mot de passe'];
  app.addHook('onClose', () => service.close());
  /** A reset event, in the trail under the account's own name (the caller is not signed in). */
  const auditReset = (request: FastifyRequest, user: UserRow, description: string, severity?: 'WARNING') =>
    app.audit.record(request, {
      eventType: 'password_reset',
      description,
      severity,
      tenantId: user.defaultTenantId,
      userId: user.id,
      username: user.username,
    });

  app.post(
    '/api/accounts/password/reset/',
    { schema: { tags, body: ResetBody, response: replies({ 200: Detail('Demande prise en compte') }, 400, 429) } },
    async (request) => {
      const email = request.body.email.trim();
      await app.limits.hit(request, 'reset', email);
      // The answer is sent before the account is even looked up, so neither its content nor its
      // timing (token write, SMTP round trip) tells whether the address belongs to an account.
      const job = (async () => {
        const issued = await service.issueReset(email);
        if (!issued) return;
        await auditReset(request, issued.user, 'Réinitialisation du mot de passe demandée');
        await service.mailReset(issued);
      })().catch((err: unknown) => request.log.error({ err }, 'password reset request failed'));
      service.inBackground(job);
      return { detail: MESSAGES.resetSent };
    },
  );

  app.post(
    '/api/accounts/password/reset/confirm/',
    { schema: { tags, body: ConfirmBody, response: replies({ 200: Detail('Mot de passe réinitialisé') }, 400, 429) } },
    async (request) => {
      // Per IP only: tokens are unguessable, this just bounds the hashing work a caller can cause.
      await app.limits.hit(request, 'reset');
      const user = await service.confirmReset(request.body.token, request.body.new_password);
      // The owner proved control of the mailbox: lift any sign-in lockout.
      await app.limits.clear('login', user.username);
      await app.limits.clear('login', user.email);
      await app.lockout.clear(lockoutKey(user.id, user.username));
      await auditReset(request, user, 'Mot de passe réinitialisé', 'WARNING');
      return { detail: 'Mot de passe réinitialisé.' };
    },
  );

  app.post(
    '/api/accounts/password/change/',
    {
      preValidation: [app.authenticate],
      schema: { tags, body: ChangeBody, response: replies.signedIn({ 200: Detail('Mot de passe modifié') }, 400, 429) },
    },
    async (request) => {
      const { user, claims } = signedIn(request);
      // A stolen access token must not become a password-guessing oracle: same budget as sign-in.
      await app.limits.hit(request, 'login', user.username);
      const { old_password, new_password } = request.body;
      if (!(await service.change(user, old_password, new_password, claims.sid))) {
        await app.audit.record(request, {
          eventType: 'password_change',
          description: 'Changement de mot de passe refusé : mot de passe actuel incorrect',
          severity: 'WARNING',
          success: false,
        });
        throw wrongCurrentPassword();
      }
      await app.limits.clear('login', user.username);
      await app.audit.record(request, { eventType: 'password_change', description: 'Mot de passe modifié' });
      return { detail: 'Mot de passe modifié.' };
    },
  );
};

export default password;
