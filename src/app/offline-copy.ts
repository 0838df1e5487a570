import { setClientEnvironment, type LiveCopy } from '../lib/api-client.ts';
import { onAuthChange, session } from '../lib/auth/session.ts';
import { STORED_AT_HEADER } from '../../contract/sw-messages.ts';

// The worker's rules, loaded with the first answer to keep rather than before the first paint (the initial
// JavaScript budget, tests/e2e/bundle.test.ts).
const policy = () => import('../../sw/policy.ts');

/**
 * The first seconds of a first visit, before the service worker controls the page, the API's answers pass it by:
 * a dashboard read then was never kept, and offline a minute later the screen fell back to sample figures. The
 * page keeps those answers itself, in the partition (user, tenant) and with the stored-at mark the service worker
 * reads, under the same rules (sw/policy.ts).
 */
export async function keepLiveCopy(copy: LiveCopy, userId: string | number | undefined): Promise<void> {
  if (typeof caches === 'undefined') return;
  const { isAuthEndpoint, isCacheable, isDownloadPath, isStreamPath, partitionName } = await policy();
  const pathname = new URL(copy.url).pathname;
  if (isAuthEndpoint(pathname) || isDownloadPath(pathname) || isStreamPath(pathname)) return;
  if (!isCacheable(copy.status, copy.contentType, copy.cacheControl)) return;
  const name = partitionName(userId, copy.tenantId);
  if (!name) return;
  // Only these two headers are kept: nothing of the answer's cookies or authorisation can reach the cache.
  const headers = new Headers({
    'Content-Type': copy.contentType ?? 'application/json',
    [STORED_AT_HEADER]: String(Date.now()),
  });
  const cache = await caches.open(name);
  await cache.put(new Request(copy.url), new Response(JSON.stringify(copy.data), { status: copy.status, headers }));
}

/** Drops every cached API answer on this device (sign-out or a lost session), whether or not a worker runs. */
export async function purgeApiCopies(): Promise<void> {
  if (typeof caches === 'undefined') return;
  const { foreignPartitions } = await policy();
  // No user kept: every partition is foreign (the worker's own purge rule).
  await Promise.all(foreignPartitions(await caches.keys(), undefined).map((n) => caches.delete(n)));
}

/** Wires the copies into the API client and their purge into sign-out. Returns the uninstaller. */
export function installOfflineCopies(): () => void {
  setClientEnvironment({
    // Called only for answers the worker did not mark: it did not see them, even if it took control since (the
    // first visit's race: the worker claims the page while the request is on its way).
    keepCopy: (copy) => {
      void keepLiveCopy(copy, session.value?.profile.id).catch(() => undefined);
    },
  });
  const off = onAuthChange((signedIn) => {
    if (!signedIn) void purgeApiCopies().catch(() => undefined);
  });
  return () => {
    setClientEnvironment({ keepCopy: undefined });
    off();
  };
}
