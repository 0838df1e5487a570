import { SignJWT, jwtVerify, decodeProtectedHeader, errors } from 'jose';
import { ringOf, type KeyEntry, type KeyRing, type KeySource } from './key-ring.ts';

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

/** Access tokens whose signature was checked, kept so a token used for many calls is checked once. */
const VERIFIED_KEPT = 10_000;

interface Verified {
  claims: AccessClaims;
  /** Expiry, ms since the epoch. */
  exp: number;
  kid: string;
}

const encoder = new TextEncoder();

/**
 * Signs and checks our JWTs. Roles in the claims are hints for clients; the server re-reads them on use. Tokens
 * carry the key id (`kid`) of the key that signed them, so after a rotation the previous key still verifies the
 * tokens it signed until they expire; a token without a key id (signed before key ids) is tried with every key.
 * `onUnknownKey` lets the ring be read again when another process rotated the keys (once, then refused).
 */
export class TokenService {
  readonly #ring: () => KeyRing;
  readonly #verified = new Map<string, Verified>();

  constructor(
    keys: KeySource,
    private readonly onUnknownKey?: () => Promise<void>,
  ) {
    this.#ring = ringOf(keys);
  }

  signAccess(claims: AccessClaims, ttlS: number = ACCESS_TOKEN_TTL_S): Promise<string> {
    const key = this.#ring().current;
    return new SignJWT({ ...claims, type: 'access' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: key.kid })
      .setSubject(claims.sub)
      .setIssuedAt()
      .setIssuer('vigie')
      .setExpirationTime(`${ttlS}s`)
      .sign(encoder.encode(key.secret));
  }

  /** `ttlS`: the security policy's session lifetime (docs/api-admin.md "Security policies"). */
  signRefresh(claims: RefreshClaims, ttlS: number = REFRESH_TOKEN_TTL_S): Promise<string> {
    const key = this.#ring().current;
    return new SignJWT({ fam: claims.fam, type: 'refresh' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: key.kid })
      .setSubject(claims.sub)
      .setJti(claims.jti)
      .setIssuedAt()
      .setIssuer('vigie')
      .setExpirationTime(`${ttlS}s`)
      .sign(encoder.encode(key.secret));
  }

  /**
   * The claims of a valid access token. A token checked before is trusted again until it expires, as long as the key
   * that signed it is still in the ring (a key dropped from the ring takes its tokens with it).
   */
  async verifyAccess(token: string): Promise<AccessClaims> {
    const known = this.#verified.get(token);
    if (known && Date.now() < known.exp && this.#ring().get(known.kid)) {
      return known.claims;
    }
    if (known) this.#verified.delete(token);
    const payload = await this.#verify(token, 'access');
    const claims = payload as unknown as AccessClaims;
    // #verify read the header already; a token without a key id (tried with every key) is checked each time.
    const kid = decodeProtectedHeader(token).kid;
    if (typeof payload.exp === 'number' && typeof kid === 'string') {
      this.#verified.set(token, { claims, exp: payload.exp * 1000, kid });
      if (this.#verified.size > VERIFIED_KEPT) this.#verified.delete(this.#verified.keys().next().value!);
    }
    return claims;
  }

  async verifyRefresh(token: string): Promise<RefreshClaims> {
    const payload = await this.#verify(token, 'refresh');
    if (typeof payload.jti !== 'string' || typeof payload.fam !== 'string') throw new TokenError('invalid token');
    return { sub: payload.sub as string, jti: payload.jti, fam: payload.fam };
  }

  /** The keys that may have signed `token`: the one its header names, or every key for a token without one. */
  async #candidates(token: string): Promise<KeyEntry[]> {
    let kid: unknown;
    try {
      kid = decodeProtectedHeader(token).kid;
    } catch {
      throw new TokenError('invalid token');
    }
    if (kid === undefined) return this.#ring().all();
    if (typeof kid !== 'string') throw new TokenError('invalid token');
    let key = this.#ring().get(kid);
    if (!key && this.onUnknownKey) {
      await this.onUnknownKey();
      key = this.#ring().get(kid);
    }
    if (!key) throw new TokenError('unknown signing key');
    return [key];
  }

  async #verify(token: string, type: 'access' | 'refresh') {
    for (const key of await this.#candidates(token)) {
      try {
        const { payload } = await jwtVerify(token, encoder.encode(key.secret), {
          issuer: 'vigie',
          algorithms: ['HS256'],
        });
        if (payload.type !== type || typeof payload.sub !== 'string') throw new TokenError('wrong token type');
        return payload;
      } catch (err) {
        if (err instanceof TokenError) throw err;
        if (err instanceof errors.JWTExpired) throw new TokenError('token expired');
        // A bad signature with this key: the next one may have signed it.
      }
    }
    throw new TokenError('invalid token');
  }
}
