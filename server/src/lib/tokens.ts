import { SignJWT, jwtVerify, errors } from 'jose';

export const ACCESS_TOKEN_TTL_S = 3600;
export const REFRESH_TOKEN_TTL_S = 7 * 24 * 3600;

export interface AccessClaims {
  sub: string;
  username: string;
  is_staff: boolean;
  is_superuser: boolean;
  /** Refresh family (sign-in session) this access token belongs to; lets logout revoke it. */
  sid?: string;
}

export interface RefreshClaims {
  sub: string;
  jti: string;
  fam: string;
}

export class TokenError extends Error {}

/** Signs and checks our JWTs. Roles in the claims are hints for clients; the server re-reads them on use. */
export class TokenService {
  readonly #key: Uint8Array;
  constructor(secret: string) {
    this.#key = new TextEncoder().encode(secret);
  }

  signAccess(claims: AccessClaims, ttlS: number = ACCESS_TOKEN_TTL_S): Promise<string> {
    return new SignJWT({ ...claims, type: 'access' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.sub)
      .setIssuedAt()
      .setIssuer('vigie')
      .setExpirationTime(`${ttlS}s`)
      .sign(this.#key);
  }

  /** `ttlS`: the security policy's session lifetime (docs/api-admin.md "Security policies"). */
  signRefresh(claims: RefreshClaims, ttlS: number = REFRESH_TOKEN_TTL_S): Promise<string> {
    return new SignJWT({ fam: claims.fam, type: 'refresh' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.sub)
      .setJti(claims.jti)
      .setIssuedAt()
      .setIssuer('vigie')
      .setExpirationTime(`${ttlS}s`)
      .sign(this.#key);
  }

  async verifyAccess(token: string): Promise<AccessClaims> {
    const payload = await this.#verify(token, 'access');
    return payload as unknown as AccessClaims;
  }

  async verifyRefresh(token: string): Promise<RefreshClaims> {
    const payload = await this.#verify(token, 'refresh');
    if (typeof payload.jti !== 'string' || typeof payload.fam !== 'string') throw new TokenError('invalid token');
    return { sub: payload.sub as string, jti: payload.jti, fam: payload.fam };
  }

  async #verify(token: string, type: 'access' | 'refresh') {
    try {
      const { payload } = await jwtVerify(token, this.#key, { issuer: 'vigie', algorithms: ['HS256'] });
      if (payload.type !== type || typeof payload.sub !== 'string') throw new TokenError('wrong token type');
      return payload;
    } catch (err) {
      if (err instanceof TokenError) throw err;
      if (err instanceof errors.JWTExpired) throw new TokenError('token expired');
      throw new TokenError('invalid token');
    }
  }
}
