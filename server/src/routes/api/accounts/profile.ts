import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError } from '../../../domain/errors.ts';
import { signedIn } from '../../../plugins/app/authorization.ts';
import { presentProfile } from '../../../presenters/user.ts';
import type { AccountsRepository } from '../../../repositories/accounts.ts';
import type { UserRow } from '../../../repositories/users.ts';
import {
  currentPasswordRequired,
  duplicateEmail,
  EmailConfirmBody,
  EmailConfirmed,
  MESSAGES,
  ProfileBody,
  profilePatch,
  ProfileUpdated,
  wrongCurrentPassword,
} from '../../../schemas/accounts.ts';
import { replies } from '../../../schemas/common.ts';
import { updateProfile } from '../../../services/accounts.ts';
import { EmailChangeService } from '../../../services/email-changes.ts';
import { createMailer } from '../../../services/mailer.ts';

const NAME_FIELDS = ['first_name', 'last_name'];

/**
 * The caller's own names, changed at once, and e-mail address, changed once the link mailed to the new address is
 * followed (docs/api-accounts.md); the rest of the profile is the administrators'.
 */
const profile: FastifyPluginAsyncTypebox<{ repo: AccountsRepository }> = async (app, { repo }) => {
  const tags = ['Comptes'];
  const emailChanges = new EmailChangeService(repo, createMailer(app.database.db));
  app.addHook('onClose', async () => emailChanges.close());

  /** A new address needs the current password: 409 when taken, 400 on current_password when missing or wrong. */
  const proveOwner = async (request: FastifyRequest, user: UserRow, email: string, password: string | undefined) => {
    if (await emailChanges.taken(user, email)) throw duplicateEmail();
    if (!password) throw currentPasswordRequired();
    // A stolen access token must not become a password-guessing oracle: same budget as sign-in.
    await app.limits.hit(request, 'login', user.username);
    if (!(await emailChanges.passwordMatches(user, password))) {
      await app.audit.record(request, {
        eventType: 'user_updated',
        description: 'Changement d’adresse e-mail refusé : mot de passe actuel incorrect',
        severity: 'WARNING',
        success: false,
      });
      throw wrongCurrentPassword('current_password');
    }
    await app.limits.clear('login', user.username);
  };

  app.patch(
    '/api/accounts/me/',
    {
      preValidation: [app.authenticate],
      schema: {
        tags,
        description:
          'Prénom et nom changent tout de suite. Une nouvelle adresse e-mail demande `current_password` et ne ' +
          'remplace l’ancienne qu’une fois confirmée par le lien envoyé à la nouvelle adresse (`detail`, `pending_email`).',
        body: ProfileBody,
        response: replies.signedIn({ 200: ProfileUpdated }, 400, 409, 429, 503),
      },
    },
    async (request) => {
      const auth = signedIn(request);
      const { email, ...names } = profilePatch(request.body);
      const newEmail = email !== undefined && email !== auth.user.email ? email : undefined;
      if (newEmail !== undefined) await proveOwner(request, auth.user, newEmail, request.body.current_password);

      const updated = await updateProfile(repo, auth.user, names);
      if (updated) {
        await app.audit.record(request, {
          eventType: 'user_updated',
          description: 'Profil modifié',
          extra: {
            fields: Object.keys(request.body)
              .filter((k) => NAME_FIELDS.includes(k))
              .sort(),
          },
        });
      }
      const answer = presentProfile(updated ?? auth.user, auth.memberships, auth.tenant ?? undefined);
      if (newEmail === undefined) return answer;

      try {
        await emailChanges.request(auth.user, newEmail);
      } catch (err) {
        request.log.error({ err }, 'e-mail change confirmation not sent');
        throw new ApiError(
          503,
          'mail_unavailable',
          'Le message de confirmation n’a pas pu être envoyé. Réessayez plus tard.',
        );
      }
      await app.audit.record(request, {
        eventType: 'user_updated',
        description: 'Changement d’adresse e-mail demandé (confirmation envoyée à la nouvelle adresse)',
        extra: { new_email: newEmail },
      });
      return { ...answer, detail: MESSAGES.emailChangeSent(newEmail), pending_email: newEmail };
    },
  );

  app.post(
    '/api/accounts/email/confirm/',
    {
      schema: {
        tags,
        description: 'Le jeton du lien envoyé à la nouvelle adresse ; valable 24 heures, une seule fois.',
        body: EmailConfirmBody,
        response: replies({ 200: EmailConfirmed }, 400, 409, 429),
      },
    },
    async (request) => {
      // Per IP only: tokens are unguessable, this just bounds the hashing work a caller can cause.
      await app.limits.hit(request, 'reset');
      const { user, previousEmail } = await emailChanges.confirm(request.body.token);
      await app.audit.record(request, {
        eventType: 'user_updated',
        description: 'Adresse e-mail changée (lien de confirmation suivi)',
        tenantId: user.defaultTenantId,
        userId: user.id,
        username: user.username,
        extra: { previous_email: previousEmail, new_email: user.email },
      });
      // The change is made; a notice that cannot be sent is only logged.
      await emailChanges
        .notifyPrevious(user, previousEmail)
        .catch((err: unknown) => request.log.error({ err }, 'e-mail change notice not sent'));
      return { detail: MESSAGES.emailConfirmed, email: user.email };
    },
  );
};

export default profile;
