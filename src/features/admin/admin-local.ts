import { kvDelete } from '../../lib/storage.ts';

/** spec §3 "Local persistence": the tenant list kept for the spec §8 fallback. */
export const ADMIN_TENANTS_CACHE_KEY = 'admin_tenants_cache';

/** Sign-out: the tenant list an administrator read does not stay on a shared screen. */
export async function clearAdminLocalData(): Promise<void> {
  await kvDelete(ADMIN_TENANTS_CACHE_KEY).catch(() => undefined);
}
