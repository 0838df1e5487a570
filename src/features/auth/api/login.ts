import { apiRequest, ApiError } from '../../../lib/api-client.ts';
import { saveSession } from '../session.ts';
import type { UserProfile } from '../types.ts';

interface TokenAnswer {
  access: string;
  refresh: string;
  expires_in?: number;
  user?: UserProfile;
}

export interface LoginInput {
  username: string;
  password: string;
}

/** §5 login validation; returns the first message or null. */
export function validateLogin({ username, password }: LoginInput): string | null {
  if (!username.trim()) return 'Username is required';
  if (!password) return 'Password is required';
  return null;
}

/**
 * Minimal sign-in for the first slice: /api/token/ then the profile.
 * The endpoint chains and answer-shape fallbacks of §7 arrive with the client session issue.
 */
export async function login(input: LoginInput): Promise<UserProfile> {
  const username = input.username.trim();
  const body: Record<string, string> = { username, identifier: username, password: input.password };
  if (username.includes('@')) body.email = username;
  const answer = await apiRequest<TokenAnswer>('/token/', { method: 'POST', body, anonymous: true, timeoutMs: 10_000 });
  if (!answer?.access || !answer.refresh) throw new ApiError(0, 'No valid token or user data received after login');
  const tokens = {
    access_token: answer.access,
    refresh_token: answer.refresh,
    expires_at: Date.now() + (answer.expires_in ?? 3600) * 1000,
  };
  const profile =
    answer.user ??
    (await apiRequest<UserProfile>('/users/me/', { timeoutMs: 10_000, token: tokens.access_token }).catch(() => {
      throw new ApiError(0, 'Impossible de récupérer le profil utilisateur après connexion');
    }));
  await saveSession({ tokens, profile });
  return profile;
}

/** French text for a failed sign-in. */
export function loginErrorMessage(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.status === 400 || err.status === 401)
      return 'Identifiants invalides : vérifiez le nom d’utilisateur et le mot de passe.';
    if (err.status === 429) return 'Trop de tentatives. Réessayez dans une minute.';
    if (err.status === 0) return 'Impossible de joindre le serveur. Vérifiez votre connexion internet.';
    return err.message;
  }
  return 'Échec de la connexion avec tous les endpoints';
}
