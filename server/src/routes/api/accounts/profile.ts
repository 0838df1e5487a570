import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { signedIn } from '../../../plugins/app/authorization.ts';
import { presentProfile, ProfileSchema } from '../../../presenters/user.ts';
import type { AccountsRepository } from '../../../repositories/accounts.ts';
import { ProfileBody, profilePatch } from '../../../schemas/accounts.ts';
import { replies } from '../../../schemas/common.ts';
import { updateProfile } from '../../../services/accounts.ts';

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
      const updated = await updateProfile(repo, auth.user, profilePatch(request.body));
      if (updated) {
        await app.audit.record(request, {
          eventType: 'user_updated',
          description: 'Profil modifié',
          extra: { fields: Object.keys(request.body).sort() },
        });
      }
      return presentProfile(updated ?? auth.user, auth.memberships, auth.tenant ?? undefined);
    },
  );
};

export default profile;
