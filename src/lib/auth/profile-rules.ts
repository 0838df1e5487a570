import type { UserProfile } from './types.ts';

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** spec §5: valid only with an id (number or string), and not a list or a paged result (no results or count keys). */
export function isValidProfile(data: unknown): data is UserProfile {
  if (!isRecord(data)) return false;
  if ('results' in data || 'count' in data) return false;
  return typeof data.id === 'number' || (typeof data.id === 'string' && data.id !== '');
}

/** spec §5 stricter check: numeric id above 0, non-empty username, email containing @, is_active absent or boolean. */
export function isStrictProfile(data: unknown): data is UserProfile {
  if (!isValidProfile(data)) return false;
  const d = data as unknown as Record<string, unknown>;
  const id = typeof d.id === 'string' && /^\d+$/.test(d.id) ? Number(d.id) : d.id;
  return (
    typeof id === 'number' &&
    id > 0 &&
    typeof d.username === 'string' &&
    d.username.trim() !== '' &&
    typeof d.email === 'string' &&
    d.email.includes('@') &&
    (d.is_active === undefined || typeof d.is_active === 'boolean')
  );
}

/**
 * spec §5 user-data check: id, username, email and is_active present; id number or string; username a non-empty
 * string; email a non-empty string containing @; is_active true (inactive accounts are rejected);
 * is_staff and is_superuser booleans if present.
 */
export function isValidUserData(data: unknown): data is UserProfile {
  if (!isRecord(data)) return false;
  const { id, username, email, is_active, is_staff, is_superuser } = data;
  return (
    (typeof id === 'number' || (typeof id === 'string' && id !== '')) &&
    typeof username === 'string' &&
    username.trim() !== '' &&
    typeof email === 'string' &&
    email.trim() !== '' &&
    email.includes('@') &&
    is_active === true &&
    (is_staff === undefined || typeof is_staff === 'boolean') &&
    (is_superuser === undefined || typeof is_superuser === 'boolean')
  );
}
