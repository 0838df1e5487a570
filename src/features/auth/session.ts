import { computed, signal } from '@preact/signals-react';
import { setAccessTokenProvider } from '../../lib/api-client.ts';
import { kvDelete, kvGet, kvSet } from '../../lib/storage.ts';
import type { TokenSet, UserProfile } from './types.ts';

export interface Session {
  tokens: TokenSet;
  profile: UserProfile;
}

const SESSION_KEY = 'session';

/** null = signed out; undefined = not restored from IndexedDB yet. */
export const session = signal<Session | null | undefined>(undefined);
export const isAuthenticated = computed(() => !!session.value && session.value.tokens.expires_at > Date.now());

setAccessTokenProvider(() => session.value?.tokens.access_token);

export async function restoreSession(): Promise<void> {
  const stored = await kvGet<Session>(SESSION_KEY).catch(() => undefined);
  session.value = stored && stored.tokens.expires_at > Date.now() ? stored : null;
}

export async function saveSession(next: Session): Promise<void> {
  await kvSet(SESSION_KEY, next);
  session.value = next;
}

export async function clearSession(): Promise<void> {
  session.value = null;
  await kvDelete(SESSION_KEY);
}

/** §5 display-name fallback: username, preferred username, name, email local part, then 'Utilisateur'. */
export function displayName(profile: Partial<UserProfile> | null | undefined): string {
  if (!profile) return 'Utilisateur';
  const candidates = [profile.username, profile.preferred_username, profile.name, profile.email?.split('@')[0]];
  return candidates.find((c) => typeof c === 'string' && c.trim() !== '')?.trim() ?? 'Utilisateur';
}

/** How the app greets someone: their full name when known, else the §5 display name. */
export function greetingName(profile: UserProfile): string {
  const full = [profile.first_name, profile.last_name].filter(Boolean).join(' ').trim();
  return full || displayName(profile);
}
