import type { UserProfile } from './types.ts';

export class TokenFormatError extends Error {
  constructor() {
    super('Format de token JWT invalide');
    this.name = 'TokenFormatError';
  }
}

function base64UrlDecode(part: string): string {
  const b64 = part.replace(/-/g, '+').replace(/_/g, '/');
  const padded = b64 + '='.repeat((4 - (b64.length % 4)) % 4);
  const binary = atob(padded);
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

/** spec §5: a token must have three dot-separated parts to be decoded. No signature check: the server does that. */
export function decodeJwt(token: string): Record<string, unknown> {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => p === '')) throw new TokenFormatError();
  try {
    const payload: unknown = JSON.parse(base64UrlDecode(parts[1]!));
    if (!payload || typeof payload !== 'object' || Array.isArray(payload)) throw new TokenFormatError();
    return payload as Record<string, unknown>;
  } catch {
    throw new TokenFormatError();
  }
}

/** Expiry of a JWT in ms, if it carries one. */
export function jwtExpiresAt(token: string): number | undefined {
  try {
    const exp = decodeJwt(token).exp;
    return typeof exp === 'number' ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** Lifetime of a JWT in ms (exp − iat, both by the issuer's clock), if it carries both claims. */
export function jwtLifetimeMs(token: string): number | undefined {
  try {
    const { iat, exp } = decodeJwt(token);
    return typeof iat === 'number' && typeof exp === 'number' && exp > iat ? (exp - iat) * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** spec §5: a profile rebuilt from a token's claims; superuser gives admin, staff gives manager, otherwise user. */
export function profileFromClaims(claims: Record<string, unknown>): UserProfile | null {
  const rawId = claims.user_id ?? claims.sub ?? claims.id;
  if (typeof rawId !== 'number' && typeof rawId !== 'string') return null;
  const numeric = typeof rawId === 'string' && /^\d+$/.test(rawId) ? Number(rawId) : rawId;
  const isSuperuser = claims.is_superuser === true;
  const isStaff = claims.is_staff === true;
  const username =
    [claims.username, claims.preferred_username, claims.name].find((v): v is string => typeof v === 'string') ?? '';
  return {
    id: numeric,
    username,
    email: typeof claims.email === 'string' ? claims.email : '',
    is_superuser: isSuperuser,
    is_staff: isStaff,
    is_active: true,
    role: isSuperuser ? 'admin' : isStaff ? 'manager' : 'user',
    ...(typeof claims.preferred_username === 'string' ? { preferred_username: claims.preferred_username } : {}),
    ...(typeof claims.name === 'string' ? { name: claims.name } : {}),
  };
}
