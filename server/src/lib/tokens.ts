import { SignJWT, jwtVerify, errors } from 'jose';

export const ACCESS_TOKEN_TTL_S = 3600;
export const REFRESH_TOKEN_TTL_S = 7 * 24 * 3600;

export interface AccessClaims {
  sub: string;
  username: string;
  is_staff: boolean;
  is_superuser: boolean;
}

export class TokenError extends Error {}

/** Signs and checks our JWTs. Roles in the claims are hints for clients; the server re-reads them on use. */
export class TokenService {
  readonly #key: Uint8Array;
  constructor(secret: string) {
    this.#key = new TextEncoder().encode(secret);
  }

  async sign(claims: AccessClaims, type: 'access' | 'refresh'): Promise<string> {
    return new SignJWT({ ...claims, type })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.sub)
      .setIssuedAt()
      .setIssuer('vigie')
      .setExpirationTime(`${type === 'access' ? ACCESS_TOKEN_TTL_S : REFRESH_TOKEN_TTL_S}s`)
      .sign(this.#key);
  }

  async verify(token: string, type: 'access' | 'refresh'): Promise<AccessClaims> {
    try {
      const { payload } = await jwtVerify(token, this.#key, { issuer: 'vigie', algorithms: ['HS256'] });
      if (payload.type !== type || typeof payload.sub !== 'string') throw new TokenError('wrong token type');
      return payload as unknown as AccessClaims;
    } catch (err) {
      if (err instanceof TokenError) throw err;
      if (err instanceof errors.JWTExpired) throw new TokenError('token expired');
      throw new TokenError('invalid token');
    }
  }
}
