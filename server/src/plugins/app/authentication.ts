import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { TokenError, type AccessClaims, type TokenService } from '../../lib/tokens.ts';
import { ApiError } from './errors.ts';

declare module 'fastify' {
  interface FastifyInstance {
    tokens: TokenService;
    /** preHandler: rejects with 401 unless a valid access token is presented. */
    authenticate: (request: FastifyRequest) => Promise<void>;
  }
  interface FastifyRequest {
    claims: AccessClaims | null;
  }
}

/** Accepts the two authorization styles the clients use: "Bearer <jwt>" and "Token <jwt>". */
export function readAuthorization(header: string | undefined): string | undefined {
  const match = /^(?:Bearer|Token)\s+(\S+)$/i.exec(header ?? '');
  return match?.[1];
}

export default fp<{ tokens: TokenService }>(
  async (app, { tokens }) => {
    app.decorate('tokens', tokens);
    app.decorateRequest('claims', null);
    app.decorate('authenticate', async (request: FastifyRequest) => {
      const token = readAuthorization(request.headers.authorization);
      if (!token) throw new ApiError(401, 'not_authenticated', "Informations d'authentification non fournies.");
      try {
        request.claims = await tokens.verify(token, 'access');
      } catch (err) {
        if (err instanceof TokenError) throw new ApiError(401, 'token_not_valid', 'Token expiré ou invalide');
        throw err;
      }
    });
  },
  { name: 'authentication' },
);
