import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { signedIn } from '../../../plugins/app/authorization.ts';
import { presentProfile, ProfileSchema } from '../../../presenters/user.ts';
import { uniqueViolation, type AccountsRepository, type ProfilePatch } from '../../../repositories/accounts.ts';
import { replies, Type } from '../../../schemas/common.ts';
import { Body, checkEmail, duplicateEmail, normalizeEmail, Text, throwIfAny, type FieldErrors } from './validation.ts';

const ProfileBody = Body({
  first_name: Type.Optional(Text(150)),
  last_name: Type.Optional(Text(150)),
  email: Type.Optional(Text(1024)),
});

/** The caller's own names and email (the rest of the profile is the administrators'). */
const profile: FastifyPluginAsyncTypebox<{ repo: AccountsRepository }> = async (app, { repo }) => {
  app.patch(
    '/api/accounts/me/',
    {
      preValidation: [app.authenticate],
      schema: { tags: ['Comptes'], body: ProfileBody, response: replies.signedIn({ 200: ProfileSchema }, 409) },
    },
    async (request) => {
      const auth = signedIn(request);
      const body = request.body;
      const patch: ProfilePatch = {};
      if (body.first_name !== undefined) patch.firstName = body.first_name.trim();
      if (body.last_name !== undefined) patch.lastName = body.last_name.trim();
      if (body.email !== undefined) {
        const fields: FieldErrors = {};
        const email = normalizeEmail(body.email);
        checkEmail(fields, email);
        throwIfAny(fields);
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
};

export default profile;
