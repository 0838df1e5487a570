import { kvDelete } from '../../lib/storage.ts';

/** spec §8 "Users": the last user list read, per user and tenant, for when the list fails with anything but 403. */
export const ADMIN_USERS_CACHE_KEY = 'admin_users_cache';

/** Sign-out: the list does not stay on a shared screen. */
export async function clearUsersLocalData(): Promise<void> {
  await kvDelete(ADMIN_USERS_CACHE_KEY).catch(() => undefined);
}
