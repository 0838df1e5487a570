import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { signedIn } from '../../../plugins/app/authorization.ts';
import { presentProfile, ProfileSchema } from '../../../presenters/user.ts';
import { replies, Type } from '../../../schemas/common.ts';

/** The caller's own profile (spec §3), under the three paths the client uses. */
const users: FastifyPluginAsyncTypebox = async (app) => {
  const anyone = { preValidation: [app.authenticate] };
  const tags = ['Comptes'];
  const profile = (request: FastifyRequest) => {
    const auth = signedIn(request);
    return presentProfile(auth.user, auth.memberships, auth.tenant ?? undefined);
  };

  // The client's reachability probe (/api/current-user/) answers the same profile.
  for (const url of ['/api/users/me/', '/api/current-user/']) {
    app.get(url, { ...anyone, schema: { tags, response: replies.signedIn({ 200: ProfileSchema }) } }, profile);
  }
  const UserData = Type.Object(
    { authenticated: Type.Literal(true), user: ProfileSchema },
    { description: 'Connecté, et le profil' },
  );
  app.get(
    '/api/tenants/user-data/',
    { ...anyone, schema: { tags, response: replies.signedIn({ 200: UserData }) } },
    async (request) => ({ authenticated: true as const, user: profile(request) }),
  );
};

export default users;
