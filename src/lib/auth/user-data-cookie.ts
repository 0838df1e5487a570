import type { UserProfile } from './types.ts';

export const USER_DATA_COOKIE = 'user-data';
const MAX_AGE_S = 604_800; // spec §9: 7 days

/** Profile fields only: the cookie is readable by scripts, so it never holds a token. */
export function userDataCookieValue(profile: UserProfile): string {
  const { id, username, email, first_name, last_name, role, is_staff, is_superuser, current_tenant } = profile;
  return encodeURIComponent(
    JSON.stringify({ id, username, email, first_name, last_name, role, is_staff, is_superuser, current_tenant }),
  );
}

/** The parent domain the cookie is also set for (app.example.fr → example.fr); none for localhost or IPs. */
export function parentDomain(hostname: string): string | undefined {
  if (!hostname.includes('.') || /^[\d.]+$/.test(hostname) || hostname.includes(':')) return undefined;
  const labels = hostname.split('.');
  return labels.length > 2 ? labels.slice(1).join('.') : undefined;
}

function write(value: string, maxAge: number): void {
  if (typeof document === 'undefined' || typeof location === 'undefined') return;
  const secure = location.protocol === 'https:' ? '; Secure' : '';
  const base = `${USER_DATA_COOKIE}=${value}; Max-Age=${maxAge}; Path=/; SameSite=Lax${secure}`;
  document.cookie = base;
  const parent = parentDomain(location.hostname);
  if (parent) document.cookie = `${base}; Domain=${parent}`;
}

export function setUserDataCookie(profile: UserProfile): void {
  write(userDataCookieValue(profile), MAX_AGE_S);
}

export function clearUserDataCookie(): void {
  write('', 0);
}
