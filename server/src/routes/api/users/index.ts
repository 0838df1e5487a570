import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { presentProfile } from '../../../presenters/user.ts';

const users: FastifyPluginAsync = async (app) => {
  const profile = (request: FastifyRequest) => {
    const auth = request.auth!;
    return presentProfile(auth.user, auth.memberships, auth.tenant ?? undefined);
  };

  app.get('/api/users/me/', { preHandler: app.authenticate }, async (request) => profile(request));
  // The client's reachability probe answers the same profile.
  app.get('/api/current-user/', { preHandler: app.authenticate }, async (request) => profile(request));
  app.get('/api/tenants/user-data/', { preHandler: app.authenticate }, async (request) => ({
    authenticated: true,
    user: profile(request),
  }));
};

export default users;
