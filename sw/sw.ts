/// <reference lib="webworker" />
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';

declare const self: ServiceWorkerGlobalScope;

// The app shell: every built asset, revisioned, so the app opens with the network off.
precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();

// App routes load index.html from the precache; /api is never answered with HTML.
registerRoute(
  new NavigationRoute(createHandlerBoundToURL('index.html'), {
    denylist: [/^\/api(\/|$)/],
    allowlist: import.meta.env.DEV ? [/^\/$/] : undefined,
  }),
);

// registerType 'prompt': the page asks before the new version takes over.
self.addEventListener('message', (event) => {
  if ((event.data as { type?: string } | null)?.type === 'SKIP_WAITING') void self.skipWaiting();
});
