import { apiRequest, ApiError, TIMEOUTS } from '../api-client.ts';
import { decodeJwt, profileFromClaims } from './jwt.ts';
import { isValidProfile, isValidUserData } from './profile-rules.ts';
import type { UserProfile } from './types.ts';

/** spec §7: where the profile is looked for, in order; the last one answers {authenticated, user}. */
export const PROFILE_ENDPOINTS = [
  '/api/users/me/',
  '/api/user/profile/',
  '/api/v1/users/me/',
  '/api/v1/api/users/me/',
  '/api/tenants/user-data/',
] as const;

export const PROFILE_MESSAGES = {
  fetchFailed: 'Impossible de récupérer le profil utilisateur après connexion',
  userDataFailed: 'Impossible de récupérer les données utilisateur après connexion',
} as const;

export class ProfileError extends Error {
  /** profile_error: nothing could be fetched; auth_failed: answers came back but none was a valid profile. */
  constructor(
    message: string,
    readonly flag: 'profile_error' | 'auth_failed',
  ) {
    super(message);
    this.name = 'ProfileError';
  }
}

/**
 * Walks the spec §7 profile chain with the given access token; falls back to a profile rebuilt from the token's
 * claims. Lists and paged answers are not profiles (spec §5).
 */
export async function fetchProfile(
  accessToken: string,
  /** `tenantId`: read the profile as seen in that tenant; `rebuildFromToken: false`: no claims fallback. */
  { tenantId, rebuildFromToken = true }: { tenantId?: string; rebuildFromToken?: boolean } = {},
): Promise<UserProfile> {
  let answered = false;
  for (const url of PROFILE_ENDPOINTS) {
    try {
      const data = await apiRequest<unknown>(url, {
        token: accessToken,
        anonymous: true,
        timeoutMs: TIMEOUTS.auth,
        ...(tenantId ? { headers: { 'X-Tenant-ID': tenantId } } : {}),
      });
      answered = true;
      if (url === '/api/tenants/user-data/') {
        const d = data as { authenticated?: unknown; user?: unknown } | null;
        if (d?.authenticated === true && isValidUserData(d.user)) return d.user;
      } else if (isValidProfile(data)) {
        return data;
      }
    } catch (err) {
      if (err instanceof ApiError && err.status !== 0 && err.status < 500) answered = true;
    }
  }
  try {
    const rebuilt = rebuildFromToken ? profileFromClaims(decodeJwt(accessToken)) : null;
    if (rebuilt) return rebuilt;
  } catch {
    /* not a JWT we can read: no fallback */
  }
  throw answered
    ? new ProfileError(PROFILE_MESSAGES.userDataFailed, 'auth_failed')
    : new ProfileError(PROFILE_MESSAGES.fetchFailed, 'profile_error');
}
