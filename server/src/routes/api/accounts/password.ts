import { createHash, randomBytes } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AccountsRepository } from '../../../repositories/accounts.ts';
import type { Mailer } from '../../../services/mailer.ts';
import { hashPassword, verifyPassword } from '../../../lib/password.ts';
import { lockoutKey } from '../../../services/login-lockout.ts';
import { ApiError } from '../../../domain/errors.ts';
import { signedIn } from '../../../plugins/app/authorization.ts';
import { replies } from '../../../schemas/common.ts';
import { assertPassword, Body, Detail, MESSAGES, Text } from './validation.ts';

const ResetBody = Body({ email: Text(1024) });
const ConfirmBody = Body({ token: Text(256), new_password: Text(1024) });
const ChangeBody = Body({ old_password: Text(1024), new_password: Text(1024) });

const RESET_TTL_MS = 60 * 60 * 1000;
const RESET_SENT = 'Si un compte correspond à cet email, un message de réinitialisation a été envoyé.';
const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;

/** Only this digest is stored: a leaked table does not hand out working reset links. */
const digest = (token: string) => createHash('sha256').update(token).digest('hex');

const invalidToken = () => new ApiError(400, 'invalid_token', 'Lien de réinitialisation invalide ou expiré.');

function resetMail(name: string, link: string): { subject: string; text: string } {
  return {
    subject: 'Vigie — réinitialisation de votre mot de passe',
    text: [
      `Bonjour ${name},`,
      '',
      'Une réinitialisation du mot de passe de votre compte Vigie a été demandée.',
      'Pour choisir un nouveau mot de passe, ouvrez ce lien (valable 1 heure, utilisable une seule fois) :',
      '',
      link,
      '',
      "Si vous n'êtes pas à l'origine de cette demande, ignorez ce message : votre mot de passe reste inchangé.",
      '',
      "— L'équipe Vigie",
    ].join('\n'),
  };
}

/** Forgotten password (a one-time link by mail) and the signed-in change of password. */
const password: FastifyPluginAsyncTypebox<{ repo: AccountsRepository; mailer: Mailer }> = async (
  app,
  { repo, mailer },
) => {
  const tags = ['Comptes — mot de passe'];
  // Reset requests finish in the background (see below); shutdown waits for them.
  const pending = new Set<Promise<void>>();
  app.addHook('onClose', async () => {
    await Promise.allSettled(pending);
    mailer.close();
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
        const user = email === '' ? undefined : await repo.findActiveByEmail(email);
        if (!user) return;
        const token = randomBytes(32).toString('base64url');
        await repo.addResetToken(user.id, digest(token), new Date(Date.now() + RESET_TTL_MS));
        await app.audit.record(request, {
          eventType: 'password_reset',
          description: 'Réinitialisation du mot de passe demandée',
          tenantId: user.defaultTenantId,
          userId: user.id,
          username: user.username,
        });
        const link = mailer.link(`/reset-password?token=${token}`);
        await mailer.send({ to: user.email, ...resetMail(user.firstName || user.username, link) });
      })().catch((err: unknown) => request.log.error({ err }, 'password reset request failed'));
      pending.add(job);
      void job.finally(() => pending.delete(job));
      return { detail: RESET_SENT };
    },
  );

  app.post(
    '/api/accounts/password/reset/confirm/',
    { schema: { tags, body: ConfirmBody, response: replies({ 200: Detail('Mot de passe réinitialisé') }, 400, 429) } },
    async (request) => {
      // Per IP only: tokens are unguessable, this just bounds the hashing work a caller can cause.
      await app.limits.hit(request, 'reset');
      const token = request.body.token.trim();
      const tokenHash = digest(token);
      const user = TOKEN_RE.test(token) ? await repo.resetTokenOwner(tokenHash) : undefined;
      if (!user) throw invalidToken();
      const newPassword = request.body.new_password;
      assertPassword('new_password', newPassword, await repo.policy());
      // Spending the token, setting the password and revoking every session happen together.
      const done = await repo.resetPassword(tokenHash, user.id, await hashPassword(newPassword));
      if (!done) throw invalidToken();
      // The owner proved control of the mailbox: lift any sign-in lockout.
      app.limits.clear('login', user.username);
      app.limits.clear('login', user.email);
      app.lockout.clear(lockoutKey(user.id, user.username));
      await app.audit.record(request, {
        eventType: 'password_reset',
        description: 'Mot de passe réinitialisé',
        severity: 'WARNING',
        tenantId: user.defaultTenantId,
        userId: user.id,
        username: user.username,
      });
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
      const auth = signedIn(request);
      const user = auth.user;
      // A stolen access token must not become a password-guessing oracle: same budget as sign-in.
      await app.limits.hit(request, 'login', user.username);
      if (!(await verifyPassword(request.body.old_password, user.passwordHash))) {
        await app.audit.record(request, {
          eventType: 'password_change',
          description: 'Changement de mot de passe refusé : mot de passe actuel incorrect',
          severity: 'WARNING',
          success: false,
        });
        throw new ApiError(400, 'invalid_password', MESSAGES.wrongCurrentPassword, {
          fields: { old_password: [MESSAGES.wrongCurrentPassword] },
        });
      }
      const newPassword = request.body.new_password;
      assertPassword('new_password', newPassword, await repo.policy());
      // Other devices are signed out; the session making the change stays.
      await repo.changePassword(user.id, await hashPassword(newPassword), auth.claims.sid);
      app.limits.clear('login', user.username);
      await app.audit.record(request, { eventType: 'password_change', description: 'Mot de passe modifié' });
      return { detail: 'Mot de passe modifié.' };
    },
  );
};

export default password;
