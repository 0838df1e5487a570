import type { FastifyPluginAsync } from 'fastify';
import { UsersRepository } from '../../../repositories/users.ts';
import { presentProfile } from '../../../presenters/user.ts';
import { DUMMY_HASH_PROMISE, verifyPassword } from '../../../lib/password.ts';
import { ACCESS_TOKEN_TTL_S } from '../../../lib/tokens.ts';
import { ApiError } from '../../../plugins/app/errors.ts';

interface TokenBody {
  username?: string;
  email?: string;
  identifier?: string;
  password: string;
}

const bodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['password'],
  properties: {
    username: { type: 'string', maxLength: 254 },
    email: { type: 'string', maxLength: 254 },
    identifier: { type: 'string', maxLength: 254 },
    password: { type: 'string', minLength: 1, maxLength: 1024 },
  },
} as const;

// Minimal sign-in for the first slice: refresh rotation, 2FA and rate limits come with the identity issue.
const token: FastifyPluginAsync = async (app) => {
  const repo = new UsersRepository(app.database.db);

  app.post<{ Body: TokenBody }>('/api/token/', { schema: { body: bodySchema } }, async (request, reply) => {
    const { username, email, identifier, password } = request.body;
    const login = [username, identifier, email].find((v) => typeof v === 'string' && v.trim() !== '');
    if (!login)
      throw new ApiError(400, 'invalid', 'Username is required', { fields: { username: ['Username is required'] } });

    const user = await repo.findByLogin(login);
    // Same work whether or not the account exists, so timing does not reveal usernames.
    const ok = await verifyPassword(password, user?.passwordHash ?? (await DUMMY_HASH_PROMISE));
    if (!user || !ok || !user.isActive) {
      throw new ApiError(400, 'invalid_credentials', 'Invalid credentials');
    }

    await repo.touchLastLogin(user.id);
    const fresh = (await repo.findById(user.id)) ?? user;
    const claims = {
      sub: String(user.id),
      username: user.username,
      is_staff: user.isStaff,
      is_superuser: user.isSuperuser,
    };
    const [access, refresh] = await Promise.all([
      app.tokens.sign(claims, 'access'),
      app.tokens.sign(claims, 'refresh'),
    ]);
    reply.header('Cache-Control', 'no-store');
    return {
      access,
      refresh,
      expires_in: ACCESS_TOKEN_TTL_S,
      user: presentProfile(fresh, await repo.membershipsOf(user.id)),
    };
  });
};

export default token;
