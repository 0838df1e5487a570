import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { UsersRepository } from '../../../repositories/users.ts';
import { presentProfile } from '../../../presenters/user.ts';
import { ApiError } from '../../../plugins/app/errors.ts';

const users: FastifyPluginAsync = async (app) => {
  const repo = new UsersRepository(app.database.db);

  const me = async (request: FastifyRequest) => {
    const claims = request.claims!;
    // The token only names the user; activity and memberships are read fresh on every call.
    const user = await repo.findById(Number(claims.sub));
    if (!user || !user.isActive) throw new ApiError(401, 'user_inactive', 'Token expiré ou invalide');
    const tenantHeader = request.headers['x-tenant-id'];
    return presentProfile(
      user,
      await repo.membershipsOf(user.id),
      typeof tenantHeader === 'string' ? tenantHeader : undefined,
    );
  };

  app.get('/api/users/me/', { preHandler: app.authenticate }, me);
  // The client's reachability probe answers the same profile.
  app.get('/api/current-user/', { preHandler: app.authenticate }, me);
};

export default users;
