/// <reference lib="webworker" />
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { clientsClaim } from 'workbox-core';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { handleApiGet, purgeApiCaches } from './api-layer.ts';
import { clearWriteQueue, handleApiWrite, pendingWrites, replayNow } from './write-queue.ts';
import { isApiPath } from './policy.ts';
import { pageMessageOf, type QueueReport } from '../contract/sw-messages.ts';

declare const self: ServiceWorkerGlobalScope;

// The app shell: every built asset, revisioned, so the app opens with the network off.
precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();
// The first visit is served by the fallback layer too, not only the pages loaded after it.
clientsClaim();

// App routes load index.html from the precache; /api is never answered with HTML.
registerRoute(
  new NavigationRoute(createHandlerBoundToURL('index.html'), {
    denylist: [/^\/api(\/|$)/],
    allowlist: import.meta.env.DEV ? [/^\/$/] : undefined,
  }),
);

// The /api fallback layer: cached reads within the TTLs, sample data on 404 or failure.
registerRoute(
  ({ url, request, sameOrigin }) => sameOrigin && request.method === 'GET' && isApiPath(url.pathname),
  ({ event }) => handleApiGet(event as FetchEvent),
);

// Offline writes the app marked queueable wait in a Background Sync queue.
for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
  registerRoute(
    ({ url, sameOrigin }) => sameOrigin && isApiPath(url.pathname),
    ({ event }) => handleApiWrite(event as FetchEvent),
    method,
  );
}

// At start-up too: browsers without the Sync API replay only when asked.
void replayNow();

self.addEventListener('message', (event) => {
  const type = pageMessageOf(event.data)?.type;
  if (type === 'REPLAY') event.waitUntil(replayNow());
  if (type === 'QUEUE_STATUS') {
    event.waitUntil(
      pendingWrites().then((pending) => event.source?.postMessage({ type: 'QUEUE', pending } satisfies QueueReport)),
    );
  }
  // registerType 'prompt': the page asks before the new version takes over.
  if (type === 'SKIP_WAITING') void self.skipWaiting();
  // Logout or a lost session: nothing of this user stays on the device.
  if (type === 'LOGOUT') event.waitUntil(Promise.all([purgeApiCaches(), clearWriteQueue()]));
});
