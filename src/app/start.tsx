import { startTransition, StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app.tsx';
import { registerServiceWorker } from './update-prompt.ts';
import { watchWriteQueue } from './write-queue-status.ts';
import { installOfflineCopies } from './offline-copy.ts';
import { installMockFetch } from './mock-fetch.ts';
import { mockApiMode, restoreMockMode, scheduleAvailabilityCheck, startBackends, watchConnection } from './modes.ts';
import { restoreSession } from '../lib/auth/session.ts';
import { startAppearance } from '../lib/appearance.ts';
import { startTokenRefresh } from '../lib/auth/token-refresh.ts';

/** Starts the app in index.html's frame (src/main.ts loads this module once React is evaluated). */
export function start(): void {
  // Before anything asks the API: mock mode answers on the device, and answers no worker saw are kept for offline.
  installMockFetch();
  installOfflineCopies();
  startAppearance();
  const root = createRoot(document.getElementById('root')!);
  // Render only once the session is known, so a signed-in reload never flashes the sign-in page. The next morning an
  // expired access token is refreshed first (a few seconds at most; offline or in mock API mode, not at all).
  const sessionReady = Promise.allSettled([restoreSession(), restoreMockMode()]).then(
    () => startTokenRefresh({ paused: mockApiMode }).firstCheck,
  );
  void sessionReady.then(() => {
    // A transition: the first render yields to the browser every few milliseconds instead of one long task.
    startTransition(() =>
      root.render(
        <StrictMode>
          <App />
        </StrictMode>,
      ),
    );
    // The audit buffer is a chunk of its own: events recorded before it arrives wait (src/lib/audit-log.ts).
    void import('./audit.ts').then((m) => m.startAudit());
    watchConnection();
    watchWriteQueue();
    // spec §9's six backends: the run-time file's list (VITE_RUNTIME_CONFIG_URL), else VITE_BACKEND_URLS.
    const runtimeFile = (import.meta.env.VITE_RUNTIME_CONFIG_URL as string | undefined) || undefined;
    scheduleAvailabilityCheck(
      startBackends(import.meta.env.VITE_BACKEND_URLS as string | undefined, async () =>
        runtimeFile ? (await import('./runtime-config.ts')).loadRuntimeConfig(fetch, runtimeFile) : {},
      ),
    );
  });
  registerServiceWorker();
}
